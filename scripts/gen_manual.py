#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generates the stint manual's outputs from its one source, docs/cli/manual.txt:

  tools/stint/cmd/help_text.c        `stint help <command>` (compiled into the CLI)
  docs/man/stint.1               the CLI's man page
  docs/man/libstint.3            the library's man page
  scripts/stint-completion.bash  bash completion (commands, options, values)

Usage: scripts/gen_manual.py [--root DIR] [--check]
  --root DIR  the repository (default: this script's parent folder)
  --check     write nothing; exit 1 and show a diff when a committed output
              differs from what the source gives (the test runs this)

The outputs are deterministic: no dates or paths other than those in the
source, so regenerating an unchanged source changes nothing.
"""

import difflib
import os
import re
import sys
import textwrap

WIDTH = 79
# `@filters` in a command stands for the filters every analysis command shares
# (tools/stint/model/filters.c), so their text is written once.
FILTERS = [
    ("--pid N", "Only process N; a comma list (N,N) or a repeated option takes any of them."),
    ("--tid N", "Only thread N; a comma list or a repeated option takes any of them."),
    ("--cat C", "Only the category C (or a category list \"a,C,b\" that holds it); --cat a,b and a repeated "
                "--cat take any of them."),
    ("--name GLOB", "Only names matching the shell glob GLOB; a comma list or a repeated option takes any of "
                    "them (a comma inside (), <>, [] or {} is part of the glob)."),
    ("--exclude-cat C", "Leave out the categories --cat C would take (a list or repeated); an exclusion wins."),
    ("--exclude-name GLOB", "Leave out the names --name GLOB would take (a list or repeated)."),
    ("--time-range A:B", "Only what overlaps [A, B): starts before B and ends after A (a zero-length span at A "
                         "counts). Times are ns, or take a unit (12.5ms, 3us, 2s, or 12.5 ms as the tables "
                         "print them); +T counts from the trace's first host-clock event (+100ms:+200ms, +1s:); "
                         "either end may be empty."),
    ("--min-dur D", "Only spans lasting at least D."),
]


# ---- parsing ---------------------------------------------------------------------

class Block:
    def __init__(self, kind, arg):
        self.kind, self.arg, self.lines = kind, arg, []


def parse(text, path):
    """-> list of pages: dict(name, section, date, summary, synopsis[], blocks[], commands[])."""
    pages, page, cmd, block = [], None, None, None
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if line.startswith("@"):
            kind, _, arg = line[1:].partition(" ")
            arg = arg.strip()
            if kind == "page":
                name, _, section = arg.partition(" ")
                page = {"name": name, "section": section, "date": "", "summary": "", "synopsis": [],
                        "blocks": [], "commands": []}
                pages.append(page)
                cmd, block = None, None
                continue
            if page is None:
                sys.exit("%s:%d: directive before the first @page" % (path, no))
            if kind == "command":
                cmd = {"name": arg, "summary": "", "synopsis": [], "blocks": []}
                page["commands"].append(cmd)
                block = None
                continue
            owner = cmd if cmd is not None else page
            if kind in ("summary", "date"):
                owner[kind] = arg
                block = None
            elif kind == "synopsis":
                owner["synopsis"].append(arg)
                block = None
            elif kind == "filters":
                for spelling, text in FILTERS:
                    b = Block("option", spelling)
                    b.lines = [text]
                    owner["blocks"].append(b)
                owner["filters"] = True
                block = None
            elif kind in ("description", "option", "exit", "example", "section", "item"):
                if kind == "section":
                    cmd = None  # free sections belong to the page
                    owner = page
                block = Block(kind, arg)
                owner["blocks"].append(block)
            else:
                sys.exit("%s:%d: unknown directive @%s" % (path, no, kind))
            continue
        if block is None:
            if line and not line.startswith("#"):
                sys.exit("%s:%d: text outside a block: %r" % (path, no, line))
            continue
        block.lines.append(line[1:] if line.startswith(" ") else line)
    for p in pages:
        for c in [p] + p["commands"]:
            if not c["summary"]:
                sys.exit("%s: %s has no @summary" % (path, c["name"]))
    return pages


def paragraphs(lines):
    """Body lines -> list of ('text', str) | ('verbatim', [lines]) | ('cmd', str)."""
    out, cur, verb = [], [], []

    def flush_text():
        if cur:
            out.append(("text", " ".join(cur)))
            cur.clear()

    def flush_verb():
        if verb:
            out.append(("verbatim", list(verb)))
            verb.clear()

    for line in lines:
        if line.startswith("|"):
            flush_text()
            verb.append(line[1:])
        elif line.startswith("$ "):
            flush_text()
            flush_verb()
            out.append(("cmd", line))
        elif not line.strip():
            flush_text()
            flush_verb()
        else:
            flush_verb()
            cur.append(line.strip())
    flush_text()
    flush_verb()
    return out


def option_words(spelling):
    """'-o, --output OUT' -> ['-o', '--output']; '--tree[=names]' -> ['--tree', '--tree=names']."""
    words = []
    for part in spelling.split(", "):
        tok = part.split(" ")[0]
        m = re.match(r"^(-[-\w]+)\[=([\w|]+)\]$", tok)
        if m:
            words.append(m.group(1))
            words += [m.group(1) + "=" + v for v in m.group(2).split("|")]
        else:
            words.append(tok)
    return words


def option_arg(spelling):
    part = spelling.split(", ")[-1]
    return part.split(" ", 1)[1] if " " in part else ""


# ---- plain text (stint help) -----------------------------------------------------------

def wrap(text, indent):
    return textwrap.wrap(text, WIDTH - indent, break_long_words=False, break_on_hyphens=False) or [""]


def help_lines(cmd):
    pad = lambda n, ls: [" " * n + l for l in ls]  # noqa: E731
    out = ["stint %s - %s" % (cmd["name"], cmd["summary"]), "", "usage:"]
    for syn in cmd["synopsis"]:
        out += textwrap.wrap(syn, WIDTH, initial_indent="  ", subsequent_indent=" " * 8,
                             break_long_words=False, break_on_hyphens=False)
    sections = {"description": [], "option": [], "exit": [], "example": []}
    for b in cmd["blocks"]:
        sections[b.kind].append(b)
    for b in sections["description"]:
        for kind, p in paragraphs(b.lines):
            out.append("")
            out += pad(2, wrap(p, 2)) if kind == "text" else pad(2, p if kind == "verbatim" else [p])
    if sections["option"]:
        out += ["", "options:"]
        for b in sections["option"]:
            out.append("  " + b.arg)
            for kind, p in paragraphs(b.lines):
                out += pad(6, wrap(p, 6))
    if sections["exit"]:
        out += ["", "exit status:"]
        for b in sections["exit"]:
            text = " ".join(p for _, p in paragraphs(b.lines))
            ls = wrap(text, 5)
            out.append("  %-2s %s" % (b.arg, ls[0]))
            out += pad(5, ls[1:])
    for b in sections["example"]:
        out += ["", "example:"]
        for kind, p in paragraphs(b.lines):
            if kind == "cmd":
                out.append("  " + p)
            elif kind == "verbatim":
                out += pad(4, p)
            else:
                out += pad(4, wrap(p, 4))
    return out


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# A run of at least this many lines that stands in two or more pages (the
# filters, the shared options) is written once and referenced by each page.
SHARED_MIN_LINES = 6


def longest_repeat(seqs, within=True):
    """-> (length, run) of the longest run of lines found twice among seqs
    (non-overlapping; inside one seq too unless within is false), or (0, None)."""
    best = (0, None)
    for x, a in enumerate(seqs):
        for y in range(x if within else x + 1, len(seqs)):
            b = seqs[y]
            prev = [0] * (len(b) + 1)
            for i in range(1, len(a) + 1):
                cur = [0] * (len(b) + 1)
                for j in range(1, len(b) + 1):
                    if a[i - 1] == b[j - 1] and (x != y or j < i - prev[j - 1]):
                        cur[j] = prev[j - 1] + 1
                        if cur[j] > best[0]:
                            best = (cur[j], tuple(a[i - cur[j]:i]))
                prev = cur
    return best


def split_on(seq, run):
    """seq's lines as parts: ('own', lines) between ('shared', run) where run stands."""
    out, i, start, n = [], 0, 0, len(run)
    while i + n <= len(seq):
        if tuple(seq[i:i + n]) == run:
            if i > start:
                out.append(("own", seq[start:i]))
            out.append(("shared", run))
            i += n
            start = i
        else:
            i += 1
    if start < len(seq):
        out.append(("own", seq[start:]))
    return out


# Two shared runs that have this many lines in common are cut there, so that
# no line of the manual is written in two shared runs.
SPLIT_MIN_LINES = 2


def split_shared(shared):
    """shared: runs that may overlap -> (distinct runs, per given run the list
    of distinct runs it is made of)."""
    pieces = {run: [run] for run in shared}
    while True:
        atoms = list(dict.fromkeys(a for run in shared for a in pieces[run]))
        n, common = longest_repeat(atoms, within=False)
        if n < SPLIT_MIN_LINES:
            return atoms, pieces
        cut = {a: [tuple(p) for _, p in split_on(a, common)] for a in atoms}
        pieces = {run: [q for a in pieces[run] for q in cut[a]] for run in shared}


def share_runs(pages):
    """pages: lists of lines -> (distinct shared runs, per page its parts:
    ('own', lines) or ('shared', run)). A run of SHARED_MIN_LINES or more that
    stands in two places becomes shared; shared runs are then cut where they
    overlap one another, so each line is written in one of them only."""
    parts = [[("own", list(p))] for p in pages]
    shared = []
    while True:
        n, run = longest_repeat([p for page in parts for kind, p in page if kind == "own"])
        if n < SHARED_MIN_LINES:
            break
        shared.append(run)
        parts = [[q for kind, p in page for q in (split_on(p, run) if kind == "own" else [(kind, p)])]
                 for page in parts]
    atoms, pieces = split_shared(shared)
    parts = [[q for kind, p in page for q in ([("shared", a) for a in pieces[p]] if kind == "shared" else [(kind, p)])]
             for page in parts]
    return atoms, parts


# Lines are packed into one element, joined by a newline, while the element
# stays within this many characters of text: the generated file is about half
# as long, and each literal stays far below C11's 4095-byte limit.
PACK_CHARS = 150


def pack_lines(lines):
    """lines -> elements, each one or more consecutive lines joined by '\n'."""
    out = []
    for l in lines:
        if out and len(out[-1]) + 1 + len(l) <= PACK_CHARS:
            out[-1] += "\n" + l
        else:
            out.append(l)
    return out


def c_lines_array(ident, lines):
    return (["static const char *const %s[] = {" % ident] +
            ["    %s," % c_string(l).replace("\n", "\\n") for l in pack_lines(lines)] + ["    NULL};", ""])


def gen_help_c(stint_page):
    out = ["/* SPDX-License-Identifier: MIT */",
           "/* help_text.c - generated by scripts/gen_manual.py from docs/cli/manual.txt; do not edit.",
           " * The text of `stint help <command>`: per command, a NULL-terminated list of",
           " * parts printed in order, each an array of elements of one or more lines",
           " * (many literals, not one, to stay under C11's 4095-byte string literal",
           " * limit); each element is printed with a newline after it. A run of lines that",
           " * several commands share (the filters, the common options) is one part that",
           " * each of their lists names, so it is written once; shared parts never",
           " * overlap, so no line stands in two of them. */",
           '#include "cmd/help_text.h"', "", "#include <string.h>", ""]
    cmds = stint_page["commands"]
    shared, parts = share_runs([help_lines(cmd) for cmd in cmds])
    for k, run in enumerate(shared):
        out += c_lines_array("help_shared_%d" % (k + 1), run)
    names, lists = [], []
    for cmd, page in zip(cmds, parts):
        ident = "help_" + re.sub(r"\W", "_", cmd["name"])
        refs, own = [], 0
        for kind, p in page:
            if kind == "shared":
                refs.append("help_shared_%d" % (shared.index(p) + 1))
            else:
                own += 1
                refs.append("%s_%d" % (ident, own))
                out += c_lines_array(refs[-1], p)
        lists.append("static const char *const *const %s[] = {%s, NULL};" % (ident, ", ".join(refs)))
        names.append((cmd["name"], ident))
    out += lists + [""]
    out.append("static const struct {\n    const char *name;\n    const char *const *const *parts;\n} pages[] = {")
    out += ["    {%s, %s}," % (c_string(n), i) for n, i in names]
    out += ["};", ""]
    out += ["/* The parts of command's manual, or NULL when there is none. */",
            "static const char *const *const *parts_of(const char *command)",
            "{",
            "    for (size_t i = 0; command && i < sizeof pages / sizeof pages[0]; i++)",
            "        if (!strcmp(pages[i].name, command))",
            "            return pages[i].parts;",
            "    return NULL;",
            "}", "",
            "int stint_help_has(const char *command)",
            "{",
            "    return parts_of(command) != NULL;",
            "}", "",
            "int stint_help_print(FILE *out, const char *command)",
            "{",
            "    const char *const *const *part = parts_of(command);",
            "    if (!part)",
            "        return -1;",
            "    for (; *part; part++)",
            "        for (const char *const *l = *part; *l; l++)",
            "            if (fputs(*l, out) == EOF || fputc('\\n', out) == EOF)",
            "                return -1;",
            "    return fflush(out) == 0 ? 0 : -1;",
            "}", ""]
    return "\n".join(out)


# ---- roff ------------------------------------------------------------------------------------

def roff(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s.startswith((".", "'")) else s


def roff_blocks(blocks, out):
    for b in blocks:
        if b.kind == "description":
            for kind, p in paragraphs(b.lines):
                out += [".PP"] + ([roff(p)] if kind != "verbatim" else [".nf"] + [roff(l) for l in p] + [".fi"])
        elif b.kind == "section":
            out.append(".SH " + roff(b.arg.upper()))
            for kind, p in paragraphs(b.lines):
                out += [".PP", roff(p)]
        elif b.kind in ("item", "option", "exit"):
            out += [".TP", ".B " + roff(b.arg) if b.kind != "option" else '.B "%s"' % roff(b.arg)]
            first = True
            for kind, p in paragraphs(b.lines):
                if not first:
                    out.append(".IP")
                out.append(roff(p))
                first = False
        elif b.kind == "example":
            for kind, p in paragraphs(b.lines):
                if kind == "verbatim":
                    out += [".PP", ".nf", ".RS 4"] + [roff(l) for l in p] + [".RE", ".fi"]
                elif kind == "cmd":
                    out += [".PP", ".nf", ".RS 4", roff(p), ".RE", ".fi"]
                else:
                    out += [".PP", roff(p)]


def gen_man(page, version):
    title = page["name"].upper()
    out = ['.\\" generated by scripts/gen_manual.py from docs/cli/manual.txt; do not edit',
           '.TH %s %s "%s" "stint %s" "stint manual"' % (title, page["section"], page["date"], version),
           ".SH NAME", "%s \\- %s" % (roff(page["name"]), roff(page["summary"])), ".SH SYNOPSIS", ".nf"]
    out += [roff(s) for s in page["synopsis"]] + [".fi"]
    pre = [b for b in page["blocks"] if b.kind in ("description",)]
    out.append(".SH DESCRIPTION")
    roff_blocks(pre, out)
    if page["commands"]:
        out.append(".SH COMMANDS")
        for cmd in page["commands"]:
            out += [".SS \"stint %s\"" % roff(cmd["name"]), roff(cmd["summary"]) + ".", ".PP", ".nf"]
            out += [roff(s) for s in cmd["synopsis"]] + [".fi"]
            kinds = [b.kind for b in cmd["blocks"]]
            roff_blocks([b for b in cmd["blocks"] if b.kind == "description"], out)
            if "option" in kinds:
                out += [".PP", "Options:"]
                roff_blocks([b for b in cmd["blocks"] if b.kind == "option"], out)
            if "exit" in kinds:
                out += [".PP", "Exit status:"]
                roff_blocks([b for b in cmd["blocks"] if b.kind == "exit"], out)
            if "example" in kinds:
                out += [".PP", "Example:"]
                roff_blocks([b for b in cmd["blocks"] if b.kind == "example"], out)
    exits = [b for b in page["blocks"] if b.kind == "exit"]
    if exits:
        out.append(".SH EXIT STATUS")
        roff_blocks(exits, out)
    examples = [b for b in page["blocks"] if b.kind == "example"]
    rest = [b for b in page["blocks"] if b.kind in ("section", "item")]
    # sections in source order; the page's example goes before SEE ALSO
    for b in rest:
        if b.kind == "section" and b.arg.upper() == "SEE ALSO" and examples:
            out.append(".SH EXAMPLE")
            roff_blocks(examples, out)
            examples = []
        roff_blocks([b], out)
    if examples:
        out.append(".SH EXAMPLE")
        roff_blocks(examples, out)
    return "\n".join(out) + "\n"


# ---- bash completion ---------------------------------------------------------------------------

def gen_completion(stint_page):
    cmds = [c["name"] for c in stint_page["commands"]]
    opts, values, files = {}, {}, set()
    for cmd in stint_page["commands"]:
        words = []
        for b in cmd["blocks"]:
            if b.kind != "option":
                continue
            words += option_words(b.arg)
            arg = option_arg(b.arg)
            for w in option_words(b.arg):
                if "|" in arg and "[" not in arg:
                    values[w] = arg.split()[0].split("|")
                elif re.match(r"^(FILE|OUT|OUT\.html|LOG)$", arg):
                    files.add(w)
        seen = []
        for w in words:
            if w not in seen:
                seen.append(w)
        opts[cmd["name"]] = seen + ["--help"]
    out = ["# SPDX-License-Identifier: MIT",
           "# bash completion for stint - generated by scripts/gen_manual.py from docs/cli/manual.txt;",
           "# do not edit. Install as <datadir>/bash-completion/completions/stint, or source it.", "",
           "_stint()", "{",
           "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
           "    local commands=%s" % sh_quote(" ".join(cmds)),
           "    COMPREPLY=()",
           "    if [ \"$COMP_CWORD\" -eq 1 ]; then",
           "        COMPREPLY=($(compgen -W \"$commands --help --version\" -- \"$cur\"))",
           "        return 0",
           "    fi",
           "    local cmd=${COMP_WORDS[1]} opts=''",
           "    case \"$cmd\" in",
           "    help) [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\")); return 0 ;;"]
    for c in cmds:
        if c != "help":
            out.append("    %s) opts=%s ;;" % (c, sh_quote(" ".join(opts[c]))))
    out += ["    *) return 0 ;;", "    esac", "    case \"$prev\" in"]
    for w in sorted(values):
        out.append("    %s) COMPREPLY=($(compgen -W %s -- \"$cur\")); return 0 ;;" % (w, sh_quote(" ".join(values[w]))))
    if files:
        out.append("    %s) COMPREPLY=($(compgen -f -- \"$cur\")); return 0 ;;" % "|".join(sorted(files)))
    valued = sorted({w for c in stint_page["commands"] for b in c["blocks"] if b.kind == "option"
                     and option_arg(b.arg) and "|" not in option_arg(b.arg)
                     and not re.match(r"^(FILE|OUT|OUT\.html|LOG)$", option_arg(b.arg))
                     for w in option_words(b.arg) if "=" not in w})
    out.append("    %s) return 0 ;;" % "|".join(valued))
    out += ["    esac",
            "    if [[ $cur == -* ]]; then",
            "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))",
            "    else",
            "        COMPREPLY=($(compgen -f -- \"$cur\"))",
            "    fi",
            "    return 0",
            "}",
            "complete -o filenames -F _stint stint", ""]
    return "\n".join(out)


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


# ---- main ------------------------------------------------------------------------------------------

def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    check = False
    i = 0
    while i < len(argv):
        if argv[i] == "--root":
            root = argv[i + 1]
            i += 2
        elif argv[i] == "--check":
            check = True
            i += 1
        else:
            sys.exit(__doc__)
    src = os.path.join(root, "docs", "cli", "manual.txt")
    with open(src, encoding="utf-8") as f:
        pages = {p["name"]: p for p in parse(f.read(), src)}
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        version = re.search(r"project\(stint VERSION ([\d.]+)", f.read()).group(1)
    outputs = {
        "tools/stint/cmd/help_text.c": gen_help_c(pages["stint"]),
        "docs/man/stint.1": gen_man(pages["stint"], version),
        "docs/man/libstint.3": gen_man(pages["libstint"], version),
        "scripts/stint-completion.bash": gen_completion(pages["stint"]),
    }
    stale = 0
    for rel, text in outputs.items():
        path = os.path.join(root, rel)
        try:
            with open(path, encoding="utf-8") as f:
                old = f.read()
        except FileNotFoundError:
            old = None
        if old == text:
            continue
        if check:
            stale += 1
            print("stale: %s (run scripts/gen_manual.py)" % rel)
            sys.stdout.writelines(difflib.unified_diff((old or "").splitlines(True), text.splitlines(True),
                                                       rel + " (committed)", rel + " (generated)", n=1))
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print("wrote " + rel)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
