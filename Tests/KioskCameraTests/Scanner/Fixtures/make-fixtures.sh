#!/usr/bin/env bash
# Regenerates the committed test images with qrencode and netpbm (Debian: qrencode, netpbm).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
seed='https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_NZN2VKl9L32Jl9-ZybE4b2eNIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2hoAaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA'
other='https://tac.gouv.fr?v=0#AACg1iHGzO7EsAJyS0awsoih09G5zg2Q1Q9grDt3azi2Zql57Sg0PhM3P1tutih63YSFHmAx-Zf-A08-qcpzD9NEpm5iAE2th3JPvlAaGdUBPcqUavPVkg7gilWOrgdoZAIQzgyOfXmWO7OZ5GTPLsGHj7n-_8Ks6ywJ65od6OLFwH0WdR3Ie0P0Zp5f0AMmoQ8r2vEOIjQseKi5UVJSe170BudqYCm2V0mfrxl2FQ'
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

qrencode -o seed-example.png -s 3 "$seed"                        # 8-bit grey (qrencode's default PNG)
pngtopnm seed-example.png > seed-example.pgm                     # P5
qrencode -o "$tmp/small.png" -s 2 "$seed"; pngtopnm "$tmp/small.png" | pnmtoplainpnm > seed-example-plain.pgm   # P2
pngtopnm seed-example.png | pgmtoppm '#203060-#f0e0c0' | pnmtopng -force > seed-example-colour.png   # 8-bit RGB, tinted
pngtopnm seed-example.png | pnmdepth 65535 | pnmtopng -force > seed-example-16bit.png   # 16-bit grey
pngtopnm seed-example.png | pnmdepth 65535 > seed-example-16bit.pgm                    # P5, 2 bytes per sample
qrencode -o "$tmp/other.png" -s 3 "$other"
pngtopnm seed-example.png > "$tmp/a.pgm"; pngtopnm "$tmp/other.png" > "$tmp/b.pgm"
pnmcat -lr -white "$tmp/a.pgm" "$tmp/b.pgm" | pnmtopng > two-codes.png
pgmmake 1 200 120 | pnmtopng > blank.png
# Binary bytes, including 0x00 and bytes >= 0x80 that are not UTF-8.
printf '\x00\x01\x80\xff\xfeKIOSK\x00end' > "$tmp/binary.bin"
qrencode -8 -r "$tmp/binary.bin" -o binary.png -s 3
echo 'not an image' > not-an-image.txt
ls -l
