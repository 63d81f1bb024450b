#!/usr/bin/env python3
"""Checks that every hotword command line the README and the other pages named show parses.

For each `hotword ...` line of a code block and each inline `hotword ...` span,
`hotword SUBCOMMAND... --help-hidden` (--help with the hidden options) must succeed, and every
--option on the line must be one that subcommand has (or its default subcommand). A failure names the page and line. Run by
scripts/test.sh on every run, on the README, docs/ and the model cards; takes seconds.

    scripts/check-command-lines.py [--binary PATH] [FILE...]   # default: the debug build's hotword, README.md
"""
import argparse
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

# The word hotword opening a command (after sudo or a path such as .build/release/).
COMMAND = re.compile(r"^\s*(?:sudo\s+)?(?:\S*/)?(hotword(?:\s.*)?)$")
INLINE = re.compile(r"`(hotword [^`]*)`")
OPTION = re.compile(r"--(\[no-\])?([a-z][a-z0-9-]*)")


def command_lines(text):
    """(line number, command) for each hotword command of a code block or inline span."""
    in_code, pending, start = False, "", 0
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_code, pending = not in_code, ""
            continue
        if in_code:
            code = re.sub(r"(^|\s)#.*$", "", line)
            if not pending:
                start = number
            if code.rstrip().endswith("\\"):
                pending += code.rstrip()[:-1] + " "
                continue
            for piece in re.split(r"&&|;|\|", pending + code):
                match = COMMAND.match(piece)
                if match:
                    yield start, match.group(1).strip()
            pending = ""
        else:
            for match in INLINE.finditer(line):
                yield number, match.group(1).replace("\\|", "|")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", help="the hotword to ask (default: the debug build's)")
    parser.add_argument("files", nargs="*", default=["README.md"])
    arguments = parser.parse_args()
    binary = arguments.binary or subprocess.run(
        ["swift", "build", "--show-bin-path"], check=True, capture_output=True, text=True).stdout.strip() + "/hotword"

    @lru_cache(maxsize=None)
    def help_of(path):
        """(exit status, text) of `hotword PATH... --help-hidden`: --help with the hidden options too."""
        done = subprocess.run([binary, *path, "--help-hidden"], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr

    def subcommands(text):
        """{name: is the default} of a help text's SUBCOMMANDS."""
        names, listing = {}, False
        for line in text.splitlines():
            if line.startswith("SUBCOMMANDS:"):
                listing = True
            elif listing and re.match(r"^\S", line):
                listing = False
            elif listing and re.match(r"^  [a-z]", line):
                words = line.split()
                names[words[0]] = len(words) > 1 and words[1] == "(default)"
        return names

    def subcommand_path(words):
        path = ()
        for word in words:
            if word.startswith("-") or word not in subcommands(help_of(path)[1]):
                break
            path += (word,)
        return path

    def has_option(path, name):
        pattern = re.compile(r"--(\[no-\])?" + re.escape(name) + r"(?![a-z0-9-])")
        negated = name.startswith("no-") and re.compile(r"--\[no-\]" + re.escape(name[3:]) + r"(?![a-z0-9-])")
        defaults = [(*path, sub) for sub, default in subcommands(help_of(path)[1]).items() if default]
        texts = [help_of(where)[1] for where in [path, *defaults]]
        return any(pattern.search(text) or (negated and negated.search(text)) for text in texts)

    commands = []
    for name in arguments.files:
        with open(name, encoding="utf-8") as page:
            commands += [(f"{name}:{number}", command) for number, command in command_lines(page.read())]
    # Quoted words are values: never subcommands or options.
    unquoted = [(place, command, re.sub(r'"[^"]*"', "VALUE", command)) for place, command in commands]
    # The helps each level of subcommands needs, a level's at once (a debug binary starts slowly).
    words = [text.split()[1:] for _, _, text in unquoted]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for depth in range(4):
            level = {subcommand_path(line[:depth]) for line in words}
            list(pool.map(help_of, level))
            list(pool.map(help_of, {(*path, name) for path in level
                                    for name, default in subcommands(help_of(path)[1]).items() if default}))
    paths = [subcommand_path(line) for line in words]

    failures = []
    for (where_in_docs, command, text), path in zip(unquoted, paths):
        where = " ".join(("hotword", *path))
        status, text_of_help = help_of(path)
        if status != 0:
            failures.append(f"{where_in_docs}: `{command}`: '{where} --help-hidden' exits {status}")
            continue
        # A command made of subcommands alone takes no other word: a misspelt subcommand is not a value.
        rest = text.split()[1 + len(path):]
        choices = subcommands(text_of_help)
        if choices and not any(choices.values()) and rest and not rest[0].startswith("-"):
            failures.append(f"{where_in_docs}: `{command}`: '{rest[0]}' is not a subcommand of '{where}' "
                            f"({', '.join(choices)})")
            continue
        for negatable, name in sorted(set(OPTION.findall(text))):
            for option in ([name, "no-" + name] if negatable else [name]):
                if not has_option(path, option):
                    failures.append(f"{where_in_docs}: `{command}`: --{option} is not an option of '{where}' "
                                    f"(see {where} --help)")
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        print(f"check-command-lines: {len(failures)} problems in the {len(commands)} hotword command lines of "
              f"{len(arguments.files)} pages", file=sys.stderr)
        return 1
    print(f"check-command-lines: all {len(commands)} hotword command lines of {len(arguments.files)} pages parse")
    return 0


if __name__ == "__main__":
    sys.exit(main())
