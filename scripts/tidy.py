#!/usr/bin/env python3
"""clang-tidy over the project's own sources, failing on any finding.

    scripts/tidy.py BUILD_DIR REGEX

Checks every file of BUILD_DIR/compile_commands.json whose path matches REGEX
with the checks of .clang-tidy (which makes every warning an error), two files
at a time per core, and exits 1 if any file has a finding, printing it.

Why a cache: clang-tidy with the static analyzer takes tens of seconds per
file that includes Boost.Beast, minutes of CPU for the tree, and CI runs it on
every change. A file whose preprocessed text, compile flags, clang-tidy
version and .clang-tidy are all the same as in a run that found nothing
cannot have a finding now, so a stamp named by the hash of those is kept
(in $XDG_CACHE_HOME/herald-tidy, else ~/.cache/herald-tidy) and the file is
skipped. Only clean results are kept: a file with a finding is checked again
every time. Preprocessing (the compiler's -E, a second or less a file) is the
price of the key; the compiler is the build's own, so the text is what the
build compiles.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time

TIDY = os.environ.get("CLANG_TIDY", "clang-tidy-14")
# clang-tidy's heap in transparent huge pages (glibc 2.35+; nothing happens
# where THP is off): about 15% less CPU per file, measured on a Beast-heavy
# one (16.6 -> 14.0 s of user time, alternated runs; docs/testing.md). LLVM
# allocates its ASTs in many small pieces, and page faults and TLB misses
# were a part of its time.
TIDY_ENV = dict(os.environ, GLIBC_TUNABLES="glibc.malloc.hugetlb=1")


def preprocess_command(entry):
    """The entry's compile command with -E to stdout, no ccache, no depfiles."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    if os.path.basename(args[0]) == "ccache":
        args = args[1:]
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD"):
            continue
        out.append(a)
    return out + ["-E", "-o", "-"]


def cache_key(entry, salt, root):
    command = preprocess_command(entry)
    pre = subprocess.run(command, cwd=entry["directory"], capture_output=True, check=False)
    if pre.returncode != 0:
        return None  # let clang-tidy report what is wrong
    # Paths inside the checkout are taken relative to it, so a fresh clone
    # elsewhere (as CI makes) finds the stamps of an earlier one.
    def relative(b):
        return b.replace(root.encode() + b"/", b"")
    h = hashlib.sha256(salt)
    h.update(relative("\0".join(command).encode()))
    h.update(relative(entry["file"].encode()))
    h.update(relative(pre.stdout))
    return h.hexdigest()


def check(entry, build_dir, cache_dir, salt, root):
    key = cache_key(entry, salt, root)
    stamp = os.path.join(cache_dir, key) if key else None
    if stamp and os.path.exists(stamp):
        return entry["file"], True, True, ""
    proc = subprocess.run(
        [TIDY, "-quiet", "-p", build_dir,
         # compile_commands.json holds GCC's flags; clang skips the ones it
         # does not know (-Wno-restrict) rather than failing on them.
         "--extra-arg=-Wno-unknown-warning-option", entry["file"]],
        capture_output=True, text=True, check=False, env=TIDY_ENV)
    report = proc.stdout + proc.stderr
    clean = proc.returncode == 0 and "warning:" not in proc.stdout
    if clean and stamp:
        os.makedirs(cache_dir, exist_ok=True)
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(entry["file"] + "\n")
    return entry["file"], clean, False, report


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    build_dir, pattern = os.path.abspath(sys.argv[1]), re.compile(sys.argv[2])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        entries = [e for e in json.load(f) if pattern.search(e["file"])]
    if not entries:
        print(f"tidy: no file of {build_dir}/compile_commands.json matches {pattern.pattern}",
              file=sys.stderr)
        return 2
    version = subprocess.run([TIDY, "--version"], capture_output=True, check=True).stdout
    with open(os.path.join(root, ".clang-tidy"), "rb") as f:
        salt = version + f.read()
    cache_dir = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")),
                             "herald-tidy")

    start = time.monotonic()
    failed, cached, done = [], 0, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = [pool.submit(check, e, build_dir, cache_dir, salt, root) for e in entries]
        for fut in concurrent.futures.as_completed(futures):
            name, clean, was_cached, report = fut.result()
            done += 1
            cached += was_cached
            if not clean:
                failed.append(name)
                print(report, end="", flush=True)
            if done % 10 == 0 or done == len(entries):
                print(f"tidy: {done}/{len(entries)} files ({cached} unchanged since a clean run), "
                      f"{time.monotonic() - start:.0f} s", flush=True)
    if failed:
        print(f"tidy: findings in {len(failed)} file(s):", *sorted(failed), sep="\n  ",
              file=sys.stderr)
        return 1
    print(f"tidy: {len(entries)} files clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
