#!/usr/bin/env python3
"""The package's dependency rules (docs/ARCHITECTURE.md), checked against `swift package describe --type json` and
against the `import` lines of every source file. Prints each broken rule and exits 1; prints a summary and exits 0
when all hold.

    check-architecture.py DESCRIBE.json REPOSITORY_ROOT
"""
import json
import os
import re
import sys

describe = json.load(open(sys.argv[1]))
root = sys.argv[2]
targets = {t["name"]: t for t in describe["targets"]}

# The layers, by target name.
CORE = {"KioskCore", "KioskProto"}
DEVICE_OWNERS = {
    # owner: its own C modules
    "KioskOpenSSL": {"CKioskOpenSSL"},
    "KioskSodium": {"CKioskSodium"},
    "KioskNFC": {"CKioskNFC"},
    "KioskGPIO": {"CKioskGPIOD"},
    "KioskStore": set(),  # SQLite through GRDB
    "KioskZip": {"CKioskZlib"},
    "KioskCamera": {"CKioskZBar", "CKioskPNG"},
    "KioskPrinter": {"CKioskQRencode"},
    "KioskHTTP": {"CKioskCurl"},
    # One owner for both C libraries of speech: espeak-ng's samples go to ALSA (docs/ARCHITECTURE.md).
    "KioskSpeech": {"CKioskEspeak", "CKioskALSA"},
    # The one owner of the PKCS #11 API: a token's keys, loaded module by module (SoftHSM2, tpm2-pkcs11, OpenSC).
    "KioskPKCS11": {"CKioskPKCS11"},
}
# Shared, C-free helpers a device owner may use besides the core (none of them is a device or does I/O of its own).
SHARED_HELPERS = {"KioskPOSIX"}
PRODUCTION = set(DEVICE_OWNERS) | CORE | SHARED_HELPERS | {"KioskExchange", "KioskDaemon", "KioskSimulation", "KioskAuthority",
                                                           "kiosk", "kiosk-authority"}
# Test support: never a dependency of a production target other than the simulation's own users.
TEST_SUPPORT = {"KioskCameraTesting", "KioskLogTesting", "CFreefareJudge"}
# Products that bring swift-nio or Hummingbird with them.
SERVER_FRAMEWORKS = re.compile(r"^(NIO\w*|_NIO\w*|Hummingbird\w*|AsyncHTTPClient|NIOCore|NIOHTTP1)$")
# System modules any target may import (the standard library's own and the platform's).
SYSTEM_MODULES = {"Foundation", "FoundationEssentials", "Dispatch", "Synchronization", "Glibc", "Darwin", "Musl",
                  "Testing", "XCTest", "_Concurrency"}

problems = []


def closure(name, seen=None):
    """Every target `name` depends on, directly or not."""
    seen = set() if seen is None else seen
    for dependency in targets.get(name, {}).get("target_dependencies", []):
        if dependency not in seen:
            seen.add(dependency)
            closure(dependency, seen)
    return seen


def products_of(names):
    found = set()
    for name in names:
        found.update(targets.get(name, {}).get("product_dependencies", []))
    return found


IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public |internal |package |private |fileprivate )?import\s+"
                    r"(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


def imports_of(name):
    """Module name → files that import it, for target `name`."""
    target = targets[name]
    found = {}
    for source in target.get("sources", []):
        if not source.endswith(".swift"):
            continue
        path = os.path.join(root, target["path"], source)
        with open(path, encoding="utf-8") as handle:
            for module in IMPORT.findall(handle.read()):
                found.setdefault(module, []).append(os.path.relpath(path, root))
    return found


# Rule 1: the core imports no C and no I/O module.
for name in CORE:
    allowed_targets = CORE - {name}
    for dependency in targets[name].get("target_dependencies", []):
        if dependency not in allowed_targets:
            problems.append(f"{name} depends on {dependency}: the core depends on nothing but the generated protobuf code")
    for module, files in imports_of(name).items():
        if module.startswith("C") and module not in SYSTEM_MODULES or module in {"Glibc", "Darwin", "Musl", "Dispatch"}:
            problems.append(f"{name} imports {module} ({files[0]}): the core imports no C module and does no I/O")
        elif module.startswith("Kiosk") and module not in allowed_targets:
            problems.append(f"{name} imports {module} ({files[0]})")

# Rule 2: a device module imports only the core, its own C module (and the shared helpers).
for name, own in DEVICE_OWNERS.items():
    allowed = own | {"KioskCore"} | SHARED_HELPERS
    for dependency in targets[name].get("target_dependencies", []):
        if dependency not in allowed:
            problems.append(f"{name} depends on {dependency}: a device module depends only on KioskCore and its own C module")
    for module, files in imports_of(name).items():
        if (module.startswith("Kiosk") or module.startswith("CKiosk")) and module not in allowed:
            problems.append(f"{name} imports {module} ({files[0]}): a device module imports only KioskCore and its own C module")
    for product in products_of([name]):
        if SERVER_FRAMEWORKS.match(product):
            problems.append(f"{name} depends on {product}")

# Rule 3: the daemon never reaches the simulation, the authority, Hummingbird or NIO (not even through another module).
daemon_closure = closure("KioskDaemon") | {"KioskDaemon"}
for forbidden in ("KioskSimulation", "KioskAuthority") + tuple(TEST_SUPPORT):
    if forbidden in daemon_closure:
        problems.append(f"KioskDaemon reaches {forbidden} through its dependencies")
for product in sorted(products_of(daemon_closure)):
    if SERVER_FRAMEWORKS.match(product):
        owners = sorted(t for t in daemon_closure if product in targets[t].get("product_dependencies", []))
        problems.append(f"KioskDaemon reaches {product} (through {', '.join(owners)}): the board's daemon links no NIO or Hummingbird")
for name in daemon_closure:
    for module, files in imports_of(name).items():
        if SERVER_FRAMEWORKS.match(module) or module in ("KioskSimulation", "KioskAuthority"):
            problems.append(f"{name} imports {module} ({files[0]}), and the daemon links {name}")

# Rule 4: the board's command links no server framework either (only the authority's command does).
kiosk_closure = closure("kiosk") | {"kiosk"}
for product in sorted(products_of(kiosk_closure)):
    if SERVER_FRAMEWORKS.match(product):
        problems.append(f"the kiosk command reaches {product}: only kiosk-authority links the server frameworks")

# Rule 5: production code never links test support, and only the commands (and tools, tests) link the simulation.
for name in PRODUCTION:
    if name not in targets:
        continue
    reach = closure(name)
    for support in TEST_SUPPORT:
        if support in reach:
            problems.append(f"{name} links the test support {support}")
    if "KioskSimulation" in reach and name not in {"kiosk"}:
        problems.append(f"{name} links KioskSimulation: only the kiosk command chooses simulated devices")

# Rule 6: every target's folder is where the layout says.
for name, target in targets.items():
    path = target["path"]
    kind = target["type"]
    if kind == "test":
        expected = path.startswith("Tests/") and path.endswith("Tests")
    elif name in PRODUCTION or name.startswith("CKiosk") and not name.endswith("Baseline"):
        expected = path == f"Sources/{name}"
    else:
        expected = path.startswith("Tools/") or path.startswith("Tests/Helpers/")
    if not expected:
        problems.append(f"{name} lives in {path}, not where docs/ARCHITECTURE.md's layout puts it")

# Every library target is accounted for in a layer.
for name, target in targets.items():
    if target["type"] == "library" and target.get("module_type") == "SwiftTarget":
        if name not in PRODUCTION and name not in TEST_SUPPORT:
            problems.append(f"{name} is in no layer of docs/ARCHITECTURE.md")

if problems:
    for problem in problems:
        print(f"05-architecture: RULE BROKEN: {problem}", file=sys.stderr)
    sys.exit(1)
print(f"05-architecture: {len(targets)} targets; the core, device, daemon, command and test-support rules hold")
