#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# With STINT_ENABLED=0 an instrumented function contains no call into the
# library (no undefined stint_ symbol in its object file), and its arguments
# are not evaluated (STINT_SCOPE, STINT_SCOPE_A, STINT_BEGIN, STINT_END); with STINT_ENABLED=1 the same file does call in (so this
# test can fail). Both compile as C11 and as C++ with -Wpedantic -Werror.
set -euo pipefail
src=${STINT_SOURCE_DIR:?}
cc=${STINT_C_COMPILER:-cc}
cxx=${STINT_CXX_COMPILER:-c++}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/probe.c" <<'C'
#include <stint/stint.h>
#ifdef __cplusplus
extern "C" {
#endif
int side_effects;
const char *name_with_side_effect(void);
const char *name_with_side_effect(void) { side_effects++; return "x"; }
int work(int n);
int work(int n)
{
#if STINT_ENABLED
    STINT_SCOPE("work");
    STINT_SCOPE_A("work.a", "k=v");
    STINT_BEGIN(s, "work.b");
    n *= 3;
    STINT_END(s);
#else
    /* not one of these arguments may be evaluated */
    STINT_SCOPE(name_with_side_effect());
    STINT_SCOPE_A(name_with_side_effect(), name_with_side_effect());
    STINT_BEGIN(s, name_with_side_effect());
    n *= 3;
    STINT_END((side_effects++, s));
#endif
    return n + 1;
}
#ifdef __cplusplus
}
#endif
C
cp "$tmp/probe.c" "$tmp/probe.cpp"
fail=0
for lang in c cpp; do
  comp=$cc; std=-std=c11; [ $lang = cpp ] && { comp=$cxx; std=-std=c++11; }
  for en in 0 1; do
    "$comp" $std -Wall -Wextra -Wpedantic -Werror -O2 -DSTINT_ENABLED=$en -I"$src/include" -c "$tmp/probe.$lang" -o "$tmp/probe_$lang$en.o"
    calls=$(nm -u "$tmp/probe_$lang$en.o" | grep -c 'stint_' || true)
    if [ "$en" = 0 ] && [ "$calls" != 0 ]; then echo "FAIL: $lang STINT_ENABLED=0 still calls: $(nm -u "$tmp/probe_$lang$en.o" | grep stint_)"; fail=1; fi
    if [ "$en" = 1 ] && [ "$calls" = 0 ]; then echo "FAIL: $lang STINT_ENABLED=1 makes no call (probe broken)"; fail=1; fi
    echo "$lang STINT_ENABLED=$en: $calls undefined stint_ symbols"
  done
  # arguments are not evaluated when disabled: run it without the library
  printf '#include <stdio.h>\nextern int side_effects; int work(int);\nint main(void){ int r = work(2); printf("%%d %%d\\n", r, side_effects); return 0; }\n' > "$tmp/main.c"
  "$cc" -c "$tmp/main.c" -o "$tmp/main.o"
  "$comp" "$tmp/main.o" "$tmp/probe_${lang}0.o" -o "$tmp/run0"
  out=$("$tmp/run0")
  if [ "$out" != "7 0" ]; then echo "FAIL: $lang STINT_ENABLED=0 evaluated its arguments: $out"; fail=1; fi
done
[ $fail = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
