#!/usr/bin/env python3
"""AlexeyAB's layer tables, and `summary`'s compared with them.

His table is what his `parse_network_cfg_custom` writes to stderr while `detector test` loads
a cfg (batch 1), from his header line (`   layer   filters  size/strd(dil) ...`) to his
`Total BFLOPS` line, with his notes on the cfg's keys taken out: `jitter: Using default
'0.200000'` (a key left out, sometimes printed in the middle of a row) and `Unused field:
'beta1 = 0.6'` (a key his parser did not read; `summary` warns of unknown keys its own way). What he prints on stdout
(`nms_kind: ...`) is not part of it. `summary`'s table is its stdout up to the same line.

Without --compare: writes Tests/CLITests/Fixtures/alexeyab-tables/NAME.txt for each of the
project's own AlexeyAB-dialect fixture cfgs (the cfgs in Tests/DarknetTests/Fixtures and its
folders whose `summary` says `dialect   AlexeyAB`; NAME is the path below Fixtures with `-`
for `/`), each headed by `#` lines naming the cfg, the command and his commit. SummaryAlexeyABTableTests compares
`summary` with them.

With --compare CFG...: runs both on each cfg (AlexeyAB-dialect ones; others are listed as
skipped) and prints, per cfg, `identical` or the first differing lines, then the counts.

AlexeyAB's darknet is not packaged and is never part of this repository: build it yourself
(CPU only) and pass its folder:
  swift build --product darknet-swift
  python3 tools/oracle/ab_tables.py --ab /somewhere/darknet --bin .build/debug/darknet-swift
  python3 tools/oracle/ab_tables.py --ab /somewhere/darknet --bin .build/debug/darknet-swift --compare /somewhere/darknet/cfg/*.cfg
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Tests", "DarknetTests", "Fixtures")
TABLES = os.path.join(ROOT, "Tests", "CLITests", "Fixtures", "alexeyab-tables")
HEADER = "   layer   filters  size/strd(dil)      input                output"
NOTE = re.compile(r"[A-Za-z0-9_]+: Using default '[^'\n]*'\n|Unused field: '[^\n]*'\n")


def table(text):
    """The lines from HEADER to the first `Total BFLOPS` line; None when there is no such table."""
    text = NOTE.sub("", text)
    start = text.find(HEADER + "\n")
    end = text.find("\nTotal BFLOPS", start)
    if start < 0 or end < 0:
        return None
    return text[start:text.index("\n", end + 1)].split("\n")


def his_table(ab, cfg):
    """His table for `cfg`, run in the cfg's folder (where its `tree=` paths point). His
    `load_alphabet` appends the label images it cannot find to `bad.list` there: removed after."""
    bad_list = os.path.join(os.path.dirname(os.path.abspath(cfg)), "bad.list")
    existed = os.path.exists(bad_list)
    with tempfile.TemporaryDirectory() as folder:
        data = os.path.join(folder, "names.data")
        with open(data, "w") as f:
            f.write(f"classes=80\nnames={os.path.join(ab, 'data', 'coco.names')}\n")
        command = [os.path.join(ab, "darknet"), "detector", "test", data, os.path.basename(cfg), "-dont_show"]
        result = subprocess.run(command, cwd=os.path.dirname(os.path.abspath(cfg)), stdin=subprocess.DEVNULL,
                                capture_output=True, text=True, errors="replace", timeout=600)
    if not existed and os.path.exists(bad_list):
        os.remove(bad_list)
    return table(result.stderr)


def summary(binary, cfg):
    """`summary`'s table for `cfg`, and whether its dialect is AlexeyAB's; (None, reason) on failure."""
    result = subprocess.run([binary, "summary", cfg], capture_output=True, text=True)
    if result.returncode != 0:
        return None, result.stderr.strip()
    alexeyab = "\ndialect   AlexeyAB " in result.stdout
    lines = result.stdout.split("\n")
    ends = [i for i, line in enumerate(lines) if line.startswith("Total BFLOPS") or line.startswith("Total BFLOPs")]
    return lines[:ends[0] + 1], alexeyab


def commit(ab):
    return subprocess.run(["git", "-C", ab, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def write(args):
    os.makedirs(TABLES, exist_ok=True)
    cfgs = sorted(glob.glob(os.path.join(FIXTURES, "**", "*.cfg"), recursive=True))
    for cfg in cfgs:
        ours, alexeyab = summary(args.bin, cfg)
        if ours is None or not alexeyab:
            continue
        lines = his_table(args.ab, cfg)
        if lines is None:
            sys.exit(f"ab_tables: his darknet printed no table for {cfg}")
        relative = os.path.relpath(cfg, ROOT)
        name = os.path.splitext(os.path.relpath(cfg, FIXTURES))[0].replace(os.sep, "-")
        with open(os.path.join(TABLES, name + ".txt"), "w") as f:
            f.write(f"# AlexeyAB's layer table for {relative} (tools/oracle/ab_tables.py): his darknet\n"
                    f"# {commit(args.ab)}, CPU only, `darknet detector test DATA {os.path.basename(cfg)} -dont_show`\n"
                    "# in the cfg's folder, stderr from his header to `Total BFLOPS`, his notes on keys removed.\n")
            f.write("\n".join(lines) + "\n")
        print(f"{name}.txt: {len(lines)} lines")


def compare(args):
    identical, different, skipped = [], [], []
    for cfg in args.compare:
        ours, alexeyab = summary(args.bin, cfg)
        if ours is None:
            skipped.append(f"{cfg}: summary failed: {alexeyab}")
            continue
        if not alexeyab:
            skipped.append(f"{cfg}: pjreddie dialect")
            continue
        his = his_table(args.ab, cfg)
        if his is None:
            skipped.append(f"{cfg}: his darknet printed no table")
            continue
        if ours == his:
            identical.append(cfg)
            print(f"identical  {cfg} ({len(his)} lines)")
            continue
        different.append(cfg)
        print(f"DIFFERENT  {cfg}")
        shown = 0
        for i in range(max(len(ours), len(his))):
            a = ours[i] if i < len(ours) else "<none>"
            b = his[i] if i < len(his) else "<none>"
            if a != b and shown < args.lines:
                print(f"  line {i + 1}\n    summary: {a!r}\n    his:     {b!r}")
                shown += 1
    for line in skipped:
        print(f"skipped    {line}")
    print(f"{len(identical)} identical, {len(different)} different, {len(skipped)} skipped")
    return 1 if different else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ab", required=True, help="AlexeyAB's darknet folder (with the built ./darknet)")
    parser.add_argument("--bin", required=True, help="a darknet-swift binary")
    parser.add_argument("--compare", nargs="+", metavar="CFG", help="compare summary with his table on these cfgs")
    parser.add_argument("--lines", type=int, default=3, help="differing lines shown per cfg (default 3)")
    args = parser.parse_args()
    args.ab = os.path.abspath(args.ab)
    if args.compare:
        sys.exit(compare(args))
    write(args)


if __name__ == "__main__":
    main()
