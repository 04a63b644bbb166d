#!/usr/bin/env python3
"""An independent oracle for the kiosk's CrowdNotifier matching, written from the CrowdNotifier specification and
SDKs' documented formulas (not from the kiosk's code): hashlib/hmac for HKDF-SHA256 and SHA-256, PyNaCl for
XSalsa20-Poly1305, a hand-written protobuf encoder, and `cryptography` for the authority's ECDSA P-256 signature.

    crowdnotifier_oracle.py OUT_DIR [--scenarios N] [--seed S]

Writes OUT_DIR/scenarios.json, and per scenario the signed CKCN/1 packages the kiosk reads:
  sNNN-good.bin(.sig)        the events as the authority publishes them (signed with the authority's key)
  sNNN-foreign.bin(.sig)     more events that would match, signed by another key: must change nothing
  sNNN-badsig.bin(.sig)      more events that would match, with a signature of other bytes: must change nothing
  sNNN-tampered.bin(.sig)    correctly signed, but every would-be match has one ciphertext byte flipped: no match
  authority.pem              the authority's public key (PEM)
Each scenario lists the venue's code, the stays (UNIX seconds) and, for each stay, the expected matches as
[day, overlap minutes rounded up] per UTC day of the union of its overlaps with the events' windows.

Specification used (docs/PROTOCOL.md §7 of the kiosk says the same in its own words):
  v3: HKDF-SHA256(ikm = QRCodePayload bytes, salt = "", info = "CrowdNotifier_v3", L = 96)
      = noncePreId | nonceTimekey | notificationKey;  preid = SHA256("CN-PREID" | payload | noncePreId);
      timekey = SHA256("CN-TIMEKEY" | be32(3600) | be64(start) | nonceTimekey);
      identity = SHA256("CN-ID" | preid | be32(3600) | be64(start) | timekey)
  v2: identity = SHA256(SHA256(QRCodeContent bytes | nonce1) | nonce2 | ascii(hour number))
  events: v3 ProblematicEvent{1 version, 2 identity, 3 secretKeyForIdentity, 4 day, 5 encryptedAssociatedData,
      6 cipherTextNonce}, AssociatedData{1 version, 2 message, 3 startTimestamp, 4 endTimestamp, 5 countryData}
      sealed with crypto_secretbox(notificationKey); v2 ProblematicEvent{1 identity, 2 secretKeyForIdentity,
      3 startTime ms, 4 endTime ms, 5 nonce, 6 message (sealed)}; NotifyMe's v3 backend (form 4, for NotifyMe v3/v4
      venues) ProblematicEvent{1 version, 2 identity, 3 secretKeyForIdentity, 4 startTime ms, 5 endTime ms,
      6 encryptedAssociatedData, 7 cipherTextNonce}, AssociatedData{1 version, 2 message, 3 countryData} sealed.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import random
import struct
import sys

import nacl.secret
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

HOUR = 3600
DAY = 86400


# -- protobuf, by hand -----------------------------------------------------------------------------------------------

def varint(value):
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value) if value else b""


def field_bytes(number, value):
    return varint((number << 3) | 2) + varint(len(value)) + value if value else b""


def field_message(number, value):
    # An empty sub-message is still written (it is "set").
    return varint((number << 3) | 2) + varint(len(value)) + value


# -- crypto ----------------------------------------------------------------------------------------------------------

def hkdf_sha256(ikm, salt, info, length):
    prk = hmac.new(salt or b"\0" * 32, ikm, hashlib.sha256).digest()
    okm, block, counter = b"", b"", 1
    while len(okm) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        okm += block
        counter += 1
    return okm[:length]


def sha256(data):
    return hashlib.sha256(data).digest()


class Venue:
    """A CrowdNotifier venue as its code describes it."""

    def __init__(self, rng, scheme):
        self.scheme = scheme  # "v2", "v3" (NotifyMe ?v=3), "v4" (SwissCovid or NotifyMe ?v=4)
        name = "Venue %d" % rng.randrange(10_000)
        if scheme == "v2":
            self.notification_key = rng.randbytes(32)
            nonce1, nonce2 = rng.randbytes(32), rng.randbytes(32)
            content = (field_bytes(1, name.encode()) + field_bytes(2, b"Street 1") + field_bytes(3, b"")
                       + field_varint(4, rng.randrange(0, 11)) + field_bytes(5, self.notification_key)
                       + field_varint(6, 0) + field_varint(7, 0))
            entry = (field_varint(1, 2) + field_message(2, content) + field_bytes(3, rng.randbytes(96))
                     + field_message(4, field_bytes(1, nonce1) + field_bytes(2, nonce2)))
            self.url = "https://qr.notify-me.ch?v=2#" + base64.urlsafe_b64encode(entry).decode().rstrip("=")
            self.preid_v2 = sha256(content + nonce1)
            self.nonce2 = nonce2
        else:
            swiss = scheme == "v4" and rng.random() < 0.5
            if swiss:
                country = (field_varint(1, 1) + field_varint(2, rng.randrange(0, 2))
                           + field_varint(4, 8 * 3600 * 1000) + field_varint(5, 12 * 3600 * 1000))
                prefix = "https://qr.swisscovid.ch?v=4#"
            else:
                country = field_varint(1, 1) + field_varint(2, rng.randrange(0, 11)) + field_bytes(3, b"Room 2")
                prefix = "https://qr.notify-me.ch?v=%s#" % scheme[1]
            version = 4 if scheme == "v4" else 3
            location = (field_varint(1, version) + field_bytes(2, name.encode()) + field_bytes(3, b"Street 2"))
            crowd = (field_varint(1, version) + field_bytes(2, rng.randbytes(96)) + field_bytes(3, rng.randbytes(32)))
            payload = (field_varint(1, version) + field_message(2, location) + field_message(3, crowd)
                       + field_bytes(4, country))
            okm = hkdf_sha256(payload, b"", b"CrowdNotifier_v3", 96)
            self.nonce_preid, self.nonce_timekey, self.notification_key = okm[:32], okm[32:64], okm[64:]
            self.preid = sha256(b"CN-PREID" + payload + self.nonce_preid)
            self.url = prefix + base64.urlsafe_b64encode(payload).decode().rstrip("=")
            self.format = "swisscovid" if swiss else "notifyme"
            # A NotifyMe server publishes its events in its own v3 layout (form 4); SwissCovid's in form 3.
            self.published_form = 3 if swiss or rng.random() < 0.5 else 4

    def identity(self, hour):
        if self.scheme == "v2":
            return sha256(self.preid_v2 + self.nonce2 + str(hour).encode())
        start = hour * HOUR
        time = struct.pack(">iq", HOUR, start)
        timekey = sha256(b"CN-TIMEKEY" + time + self.nonce_timekey)
        return sha256(b"CN-ID" + self.preid + time + timekey)

    def form(self):
        return 2 if self.scheme == "v2" else self.published_form


def seal_event(rng, venue, hour, start, end, key=None):
    """One published event for `hour` of `venue` about the window [start, end) (seconds); `key` overrides the
    notification key (an event sealed under a key the venue does not have)."""
    key = key or venue.notification_key
    nonce = rng.randbytes(24)
    box = nacl.secret.SecretBox(key)
    message = ("event %d" % rng.randrange(1000)).encode()
    if venue.form() == 3:
        associated = (field_varint(1, 1) + field_bytes(2, message) + field_varint(3, start) + field_varint(4, end))
        sealed = box.encrypt(associated, nonce).ciphertext
        return {"form": 3, "identity": venue.identity(hour), "sealed": sealed, "nonce": nonce,
                "day": (hour * HOUR // DAY) * DAY, "start": start, "end": end}
    if venue.form() == 4:
        associated = field_varint(1, 1) + field_bytes(2, message) + field_bytes(3, b"\x08\x01")
        sealed = box.encrypt(associated, nonce).ciphertext
        return {"form": 4, "identity": venue.identity(hour), "sealed": sealed, "nonce": nonce,
                "startMs": start * 1000, "endMs": end * 1000, "start": start, "end": end}
    sealed = box.encrypt(message, nonce).ciphertext
    return {"form": 2, "identity": venue.identity(hour), "sealed": sealed, "nonce": nonce,
            "startMs": start * 1000, "endMs": end * 1000, "start": start, "end": end}


def wrapper_bytes(form, events):
    body = field_varint(1, 3 if form == 4 else form)
    for event in events:
        if form == 4:
            published = (field_varint(1, 3) + field_bytes(2, event["identity"])
                         + field_bytes(3, b"\x01" * 48) + field_varint(4, event["startMs"])
                         + field_varint(5, event["endMs"]) + field_bytes(6, event["sealed"])
                         + field_bytes(7, event["nonce"]))
        elif form == 3:
            published = (field_varint(1, 3) + field_bytes(2, event["identity"])
                         + field_bytes(3, b"\x01" * 48) + field_varint(4, event["day"])
                         + field_bytes(5, event["sealed"]) + field_bytes(6, event["nonce"]))
        else:
            published = (field_bytes(1, event["identity"]) + field_bytes(2, b"\x01" * 48)
                         + field_varint(3, event["startMs"]) + field_varint(4, event["endMs"])
                         + field_bytes(5, event["nonce"]) + field_bytes(6, event["sealed"]))
        body += field_message(2, published)
    return body


def package(form, created, events):
    return b"CKCN" + bytes([1, form]) + struct.pack(">Q", created) + wrapper_bytes(form, events)


def sign(key, data):
    return key.sign(data, ec.ECDSA(hashes.SHA256()))


def expected_matches(venue, stay, events):
    """What the specification says the stay matches: every hour of the stay (both ends' hours included), every
    event under that hour's identity that opens with the venue's key, overlap > 0; windows joined; split per UTC
    day; minutes rounded up."""
    start, end = stay
    overlaps = []
    for hour in range(start // HOUR, end // HOUR + 1):
        identity = venue.identity(hour)
        for event in events:
            if event["identity"] != identity:
                continue
            try:
                nacl.secret.SecretBox(venue.notification_key).decrypt(event["sealed"], event["nonce"])
            except Exception:
                continue
            low, high = max(start, event["start"]), min(end, event["end"])
            if high > low:
                overlaps.append((low, high))
    merged = []
    for low, high in sorted(overlaps):
        if merged and low <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    out = []
    for low, high in merged:
        while low < high:
            day = low // DAY
            piece = min(high, (day + 1) * DAY)
            out.append([day, (piece - low + 59) // 60])
            low = piece
    return out


def scenario(rng, number, base, authority, foreign, out_dir):
    scheme = rng.choice(["v2", "v3", "v4"])
    venue = Venue(rng, scheme)
    decoy = Venue(rng, rng.choice(["v2", "v3", "v4"]))
    stays = []
    for _ in range(rng.randrange(1, 5)):
        start = base + rng.randrange(0, 3 * DAY)
        stays.append((start, start + rng.randrange(60, 6 * HOUR)))
    events = []
    for _ in range(rng.randrange(0, 4)):
        # A warned window: sometimes around a stay, sometimes anywhere in the days.
        if stays and rng.random() < 0.7:
            anchor = rng.choice(stays)[0] + rng.randrange(-3 * HOUR, 3 * HOUR)
        else:
            anchor = base + rng.randrange(0, 3 * DAY)
        low, high = anchor, anchor + rng.randrange(5 * 60, 4 * HOUR)
        for hour in range(low // HOUR, (high - 1) // HOUR + 1):
            events.append(seal_event(rng, venue, hour, low, high))
    # Look-alikes that must never match: the decoy venue at the stays' hours, and this venue's identity sealed
    # under another key (a forger without the code).
    for start, end in stays:
        hour = start // HOUR
        if decoy.form() == venue.form():
            events.append(seal_event(rng, decoy, hour, start - HOUR, end + HOUR))
        events.append(seal_event(rng, venue, hour, start - HOUR, end + HOUR, key=rng.randbytes(32)))
    rng.shuffle(events)
    created = base + 3 * DAY
    good = package(venue.form(), created, events)
    name = "s%03d" % number
    write(out_dir, name + "-good.bin", good, sign(authority, good))

    # Events that would match every stay, published three wrong ways.
    extra = [seal_event(rng, venue, s // HOUR, s - 60, e + 60) for s, e in stays]
    forged = package(venue.form(), created + 1, extra)
    write(out_dir, name + "-foreign.bin", forged, sign(foreign, forged))
    write(out_dir, name + "-badsig.bin", forged, sign(authority, forged + b"\0"))
    tampered_events = []
    for event in extra:
        changed = dict(event)
        sealed = bytearray(event["sealed"])
        sealed[rng.randrange(len(sealed))] ^= 1 << rng.randrange(8)
        changed["sealed"] = bytes(sealed)
        tampered_events.append(changed)
    tampered = package(venue.form(), created + 2, tampered_events)
    write(out_dir, name + "-tampered.bin", tampered, sign(authority, tampered))
    expected_tampered = [expected_matches(venue, stay, tampered_events) for stay in stays]
    assert all(not found for found in expected_tampered), "a tampered event opened"

    return {"name": name, "scheme": scheme, "url": venue.url, "form": venue.form(),
            "stays": [list(stay) for stay in stays],
            "expected": [expected_matches(venue, stay, events) for stay in stays],
            "events": len(events)}


def write(out_dir, name, data, signature):
    with open(os.path.join(out_dir, name), "wb") as out:
        out.write(data)
    with open(os.path.join(out_dir, name + ".sig"), "wb") as out:
        out.write(signature)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--scenarios", type=int, default=200)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    rng = random.Random(seed)
    os.makedirs(args.out, exist_ok=True)
    authority = ec.generate_private_key(ec.SECP256R1())
    foreign = ec.generate_private_key(ec.SECP256R1())
    with open(os.path.join(args.out, "authority.pem"), "wb") as out:
        out.write(authority.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    base = 1_790_000_000 - 1_790_000_000 % DAY
    scenarios = [scenario(rng, number, base, authority, foreign, args.out) for number in range(args.scenarios)]
    with open(os.path.join(args.out, "scenarios.json"), "w") as out:
        json.dump({"seed": seed, "scenarios": scenarios}, out, indent=1)
    matched = sum(1 for s in scenarios for found in s["expected"] if found)
    stays = sum(len(s["stays"]) for s in scenarios)
    print(f"crowdnotifier-oracle: seed {seed}: {len(scenarios)} scenarios, {stays} stays, {matched} should match")


if __name__ == "__main__":
    sys.exit(main())
