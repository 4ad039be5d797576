# SPDX-License-Identifier: MIT
"""What the corpus tests share: finding a corpus folder and stint, and a check tally.

locate(folder) gives (path of ../shared/corpus/<folder>, the stint binary), or the exit code
to return: 77 (skipped) when the folder is absent, 1 when STINT_BIN is not set.
Checker counts ok / failed / known-difference checks and prints one line per check.
"""
import os


def locate(folder):
    shared = os.environ.get("STINT_SHARED_DIR") or os.path.join(os.path.dirname(__file__),
                                                                "../../../shared")
    base = os.path.join(shared, "corpus", folder)
    stint = os.environ.get("STINT_BIN")
    if not os.path.isdir(base):
        print("SKIP: %s is absent" % base)
        return 77
    if not stint:
        print("STINT_BIN is not set")
        return 1
    return base, stint


class Checker:
    """check(label, want, got, key): ok when equal; a key in `known` (key -> why) must differ
    (XFAIL), and one that agrees fails, so the list of known differences stays honest. Long
    values are cut at `width` characters in a failure's message."""

    def __init__(self, known=None, width=None):
        self.known_why = known or {}
        self.width = width
        self.ok = self.fail = self.known = 0

    def __call__(self, label, want, got, key=None):
        why = self.known_why.get(key)
        if want == got and why is None:
            self.ok += 1
            print("ok   %s" % label)
        elif want != got and why is not None:
            self.known += 1
            print("XFAIL %s: expected %s, got %s\n      (%s)" % (label, want, got, why))
        else:
            self.fail += 1
            w, g = str(want), str(got)
            if self.width:
                w, g = w[:self.width], g[:self.width]
            print("FAIL %s\n      expected %s\n      got      %s%s" % (
                label, w, g, "\n      (listed as a known difference: remove it)" if why else ""))

    def done(self):
        """Prints the tally; the exit code (1 on any failure)."""
        print("%d ok, %d known differences, %d failed" % (self.ok, self.known, self.fail))
        return 1 if self.fail else 0
