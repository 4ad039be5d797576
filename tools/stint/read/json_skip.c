/* SPDX-License-Identifier: MIT */
/*
 * json_skip.c - the tokenizer's fast skips of a whole value (json.h:
 * stint_json_skip), and the choice among them at run time.
 *
 * Invariant: a fast walk accepts a strict subset of what the general skip
 * (json.c) accepts and ends where it would; on anything else it gives up
 * (NULL) and the general skip starts the value over, so messages, offsets
 * and repair counts have one source. Bytes past the window's end are never
 * read as data. The walk is chosen once at run time: objects and arrays by
 * 64-byte blocks of bit masks where the CPU has AVX2, PCLMUL and POPCNT,
 * else token by token (STINT_NO_AVX2=1 forces the portable token walk;
 * STINT_JSON_SKIP=swar|token|digits|block picks one, for measuring).
 */
#include "read/json.h"
#include "read/json_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- fast skip ---------------------------------------------------------------------
 *
 * Most skipped values (Chrome "args" objects) are plain: ASCII strings without
 * control bytes, ordinary numbers, shallow nesting. Two fast walks handle
 * those; each accepts a strict subset of what the general skip accepts and
 * produces the same end position. On anything else (window end, \u escapes,
 * control bytes, trailing commas, nesting deeper than 64, any error) they give
 * up and the general skip starts the value over, so messages, offsets and
 * repair counts come from one place only.
 *
 * - The token walk (fast_skip_body) goes from token to token, scanning string
 *   bodies 32 bytes at a time (AVX2) or 8 at a time (SWAR); it also gives up
 *   on non-ASCII bytes. It is the portable path, and the AVX2 path for values
 *   that are not objects or arrays.
 * - The block walk (block_skip, AVX2 + PCLMUL + POPCNT, objects and arrays) classifies
 *   64 bytes at a time into bit masks, finds the bytes inside strings with a
 *   prefix XOR of the unescaped quotes and visits only the token starts; see
 *   its own comment. block_skip512 is the same walk classifying on AVX-512BW
 *   (the default where the CPU has it: fewer instructions per block, which
 *   leaves more of a shared core to the inflate thread).
 *
 * In front of these, the Chrome reader and its inflate thread keep a cache of
 * the shapes of the args objects the fast walks accepted (json_shape.h): an
 * object with a known shape ends at its '}' without being walked again. */

#define FAST_GIVE_UP NULL

/* At a byte the string scan stopped on: the position after a one-letter
 * escape, or NULL (anything else: the general scan decides). */
static inline const char *past_escape(const char *p, const char *end)
{
    if (*p != '\\' || p + 2 >= end)
        return FAST_GIVE_UP;
    char e = p[1];
    if (!(e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't'))
        return FAST_GIVE_UP;
    return p + 2;
}

/* Finds the closing quote of a string body starting at p; NULL to give up. */
static inline __attribute__((always_inline)) const char *scan_str_swar(const char *p, const char *end)
{
    for (;;) {
        while (p + 8 <= end) {
            uint64_t sp = special_bytes(load64(p));
            if (sp) {
                p += __builtin_ctzll(sp) >> 3;
                goto found;
            }
            p += 8;
        }
        while (p < end && (unsigned char)*p >= 0x20 && (unsigned char)*p < 0x80 && *p != '"' && *p != '\\')
            p++;
        if (p >= end)
            return FAST_GIVE_UP;
    found:
        if (*p == '"')
            return p;
        if (!(p = past_escape(p, end)))
            return FAST_GIVE_UP;
    }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define STINT_JSON_HAVE_AVX2 1

__attribute__((target("avx2"), always_inline)) static inline const char *scan_str_avx2(const char *p, const char *end)
{
    const __m256i q = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\'), sp = _mm256_set1_epi8(0x20);
    for (;;) {
        while (p + 32 <= end) {
            __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
            /* signed compare: bytes >= 0x80 are negative, so "< 0x20" catches them too */
            __m256i m = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, q), _mm256_cmpeq_epi8(v, bs)),
                                        _mm256_cmpgt_epi8(sp, v));
            unsigned mask = (unsigned)_mm256_movemask_epi8(m);
            if (mask) {
                p += __builtin_ctz(mask);
                goto found;
            }
            p += 32;
        }
        return scan_str_swar(p, end);
    found:
        if (*p == '"')
            return p;
        if (!(p = past_escape(p, end)))
            return FAST_GIVE_UP;
    }
}
#endif

typedef const char *(*scan_fn)(const char *p, const char *end);

static inline int is_ws(int c)
{
    return stint_json_is_blank(c);
}

/* The bytes that may follow a number or literal (is_delim less 0 and ':',
 * which the general skip turns into errors). */
static inline int is_plain_delim(int c)
{
    return c == ',' || c == '}' || c == ']' || is_ws(c);
}

/* The first non-digit at or after p. With swar, eight bytes at a time: no
 * branch that depends on the number's length, which varies from number to
 * number and so would be mispredicted (the padding's 0 or the byte after a
 * sub-window stops it within the readable bytes). */
static inline __attribute__((always_inline)) const char *skip_digits(const char *p, int swar)
{
    if (swar) {
        for (;;) {
            uint64_t t = load64(p) ^ (ONES * '0'); /* digits become 0..9 */
            uint64_t nd = (((t & ~HIGHS) + ONES * 0x76) | t) & HIGHS;
            if (nd)
                return p + (__builtin_ctzll(nd) >> 3);
            p += 8;
        }
    }
    while ((unsigned)(*p - '0') < 10)
        p++;
    return p;
}

/* Skips a number at p (already known to start with '-' or a digit) with the
 * grammar of stint_json_number; NULL to give up (including at the window end). */
static inline __attribute__((always_inline)) const char *scan_number(const char *p, const char *end, int swar)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if ((unsigned)(*p - '1') < 9)
        p = skip_digits(p + 1, swar);
    else
        return FAST_GIVE_UP;
    if (*p == '.') {
        p++;
        if ((unsigned)(*p - '0') >= 10)
            return FAST_GIVE_UP;
        p = skip_digits(p + 1, swar);
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if ((unsigned)(*p - '0') >= 10)
            return FAST_GIVE_UP;
        p = skip_digits(p + 1, swar);
    }
    /* the padding's 0 stops every scan above; the end of the window is "more" */
    if (p >= end || !is_plain_delim(*p))
        return FAST_GIVE_UP;
    return p;
}

/* Skips a number, true, false or null at p, which must be followed inside the
 * window by a plain delimiter; NULL to give up (any other byte at p included). */
static inline __attribute__((always_inline)) const char *scan_scalar(const char *p, const char *end, int swar)
{
    int c = (unsigned char)*p;
    if (c == '-' || (unsigned)(c - '0') < 10)
        return scan_number(p, end, swar);
    const char *word = c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" : NULL;
    if (!word)
        return FAST_GIVE_UP;
    size_t n = strlen(word);
    if (end - p <= (ptrdiff_t)n || memcmp(p, word, n) != 0 || !is_plain_delim(p[n]))
        return FAST_GIVE_UP;
    return p + n;
}

static inline __attribute__((always_inline)) const char *fast_skip_body(const char *p, const char *end, scan_fn scan,
                                                                       int swar)
{
    uint64_t stack = 0; /* 1 bit per level: 1 = object */
    unsigned depth = 0;
    int c;
#define WS()                                                                                                           \
    do {                                                                                                               \
        while (is_ws(*p))                                                                                              \
            p++;                                                                                                       \
        if (p >= end)                                                                                                  \
            return FAST_GIVE_UP;                                                                                       \
        c = (unsigned char)*p;                                                                                         \
    } while (0)
value:
    WS();
    if (c == '"') {
        p = scan(p + 1, end);
        if (!p)
            return FAST_GIVE_UP;
        p++;
    } else if (c == '{' || c == '[') {
        if (depth >= 64)
            return FAST_GIVE_UP;
        int is_obj = c == '{';
        stack = (stack << 1) | (uint64_t)is_obj;
        depth++;
        p++;
        WS();
        if (is_obj) {
            if (c == '}')
                goto close;
            goto key;
        }
        if (c == ']')
            goto close;
        goto value;
    } else if (!(p = scan_scalar(p, end, swar)))
        return FAST_GIVE_UP;
after_value:
    if (depth == 0)
        return p;
    WS();
    if (c == ',') {
        p++;
        if (stack & 1) {
            WS();
            goto key;
        }
        goto value;
    }
    if (c != ((stack & 1) ? '}' : ']'))
        return FAST_GIVE_UP;
close:
    p++;
    depth--;
    stack >>= 1;
    goto after_value;
key:
    /* c is the first byte of a key */
    if (c != '"')
        return FAST_GIVE_UP;
    p = scan(p + 1, end);
    if (!p)
        return FAST_GIVE_UP;
    p++;
    WS();
    if (c != ':')
        return FAST_GIVE_UP;
    p++;
    goto value;
#undef WS
}

static const char *fast_skip_swar(const char *p, const char *end)
{
    return fast_skip_body(p, end, scan_str_swar, 1);
}

#ifdef STINT_JSON_HAVE_AVX2
__attribute__((target("avx2"))) static const char *fast_skip_avx2(const char *p, const char *end)
{
    return fast_skip_body(p, end, scan_str_avx2, 0);
}

/* The token walk with AVX2 strings and eight-byte digit runs. */
__attribute__((target("avx2"))) static const char *fast_skip_avx2_digits(const char *p, const char *end)
{
    return fast_skip_body(p, end, scan_str_avx2, 1);
}

/* ---- block walk ----
 *
 * block_skip() validates an object or array 64 bytes at a time with bit masks
 * (bit i = byte i of the block) and no work per token but for brackets:
 *
 * - Vector compares and nibble lookups classify the bytes: quotes,
 *   backslashes, ',', ':', opening and closing brackets, blanks, bytes < 0x20
 *   or >= 0x80, digits, zeros.
 * - Backslashes (rare) are walked one by one to find the escaped bytes and
 *   check each escape. The unescaped quotes give the bytes inside strings as a
 *   prefix XOR (a carry-less multiply by all ones), carried across blocks.
 * - Outside strings, the tokens are the structural characters, the opening
 *   quotes and the runs of other non-blank bytes (numbers and literals, or
 *   garbage). Runs of plain digits are vouched for by the masks; every other
 *   run goes through scan_scalar.
 * - Brackets are walked one by one: they must match, nest at most 64 deep, and
 *   the one that closes the value ends the walk. The walk also marks which
 *   bytes are directly inside an object (in_obj).
 * - The grammar is checked as "what may follow what": for each kind of token,
 *   the next non-blank byte after it (follows(): one addition carries each
 *   token's end over the blanks after it) must start a token of an allowed
 *   kind. A string is a key when it follows '{' or a ',' inside an object; an
 *   addition over the in-string mask carries that from its opening quote to
 *   its closing one. With matching brackets, these rules are RFC 8259's.
 *
 * Positions that make the walk give up only count at or before the value's
 * end, since the rest of the last block belongs to whatever follows the
 * value. Bytes past the window end are never read as data: the last partial
 * block is copied into a zero-filled buffer, and a zero byte makes any string
 * or number that reaches it give up. */

/* The one-letter escapes the fast walks accept (\u goes to the general skip). */
static const uint8_t esc_ok[256] = {['"'] = 1, ['\\'] = 1, ['/'] = 1, ['b'] = 1,
                                    ['f'] = 1, ['n'] = 1,  ['r'] = 1, ['t'] = 1};

/* One 64-byte block as bit masks. */
struct blk {
    uint64_t quote, bslash, lt20, comma, colon, open, close, blank, digit, zero;
};

/* classify()'s two lookup tables, by low and by high nibble (see below) */
static const int8_t cls_lo[16] = {8 | 32 | 64, 32, 32, 32, 32, 32, 32, 32, 32, 16 | 32, 2 | 16, -128, 1, 4 | 16, 0, 0};
static const int8_t cls_hi[16] = {16, 0, 1 | 8, 2 | 32 | 64, 0, 4 | -128, 0, 4 | -128, 0, 0, 0, 0, 0, 0, 0, 0};

/* Classifies the 64 bytes at s. All but three masks come from two nibble
 * lookups whose AND has a bit per group: 1 ',', 2 ':', 4 '}' ']', 8 space,
 * 16 \t \n \r, 32 digits, 64 '0', 128 '{' '['. Each group is exactly its
 * low nibbles times its high nibbles, and bytes >= 0x80 look up 0. movemask
 * takes bit 7 of each byte; a 16-bit shift left by 7 - k brings bit k there
 * (from the same byte: the bits that cross into the upper byte land below
 * its bit 7). */
__attribute__((target("avx2"), always_inline)) static inline void classify(const char *s, struct blk *m)
{
    const __m256i lo_tab = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)cls_lo));
    const __m256i hi_tab = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)cls_hi));
    const __m256i nib = _mm256_set1_epi8(0x0F);
    __m256i v[2], c[2];
    for (int h = 0; h < 2; h++) {
        v[h] = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32 * h));
        c[h] = _mm256_and_si256(_mm256_shuffle_epi8(lo_tab, _mm256_and_si256(v[h], nib)),
                                _mm256_shuffle_epi8(hi_tab, _mm256_and_si256(_mm256_srli_epi16(v[h], 4), nib)));
    }
#define MASK64(E) ((uint64_t)(uint32_t)_mm256_movemask_epi8(E##_(0)) | (uint64_t)(uint32_t)_mm256_movemask_epi8(E##_(1)) << 32)
#define Q_(h) _mm256_cmpeq_epi8(v[h], _mm256_set1_epi8('"'))
#define B_(h) _mm256_cmpeq_epi8(v[h], _mm256_set1_epi8('\\'))
#define L_(h) _mm256_cmpgt_epi8(_mm256_set1_epi8(0x20), v[h]) /* signed: bytes >= 0x80 too */
#define COMMA_(h) _mm256_slli_epi16(c[h], 7)
#define COLON_(h) _mm256_slli_epi16(c[h], 6)
#define CLOSE_(h) _mm256_slli_epi16(c[h], 5)
#define BLANK_(h) _mm256_cmpgt_epi8(_mm256_and_si256(c[h], _mm256_set1_epi8(0x18)), _mm256_setzero_si256())
#define DIGIT_(h) _mm256_slli_epi16(c[h], 2)
#define ZERO_(h) _mm256_slli_epi16(c[h], 1)
#define OPEN_(h) c[h]
    m->quote = MASK64(Q);
    m->bslash = MASK64(B);
    m->lt20 = MASK64(L);
    m->comma = MASK64(COMMA);
    m->colon = MASK64(COLON);
    m->close = MASK64(CLOSE);
    m->blank = MASK64(BLANK);
    m->digit = MASK64(DIGIT);
    m->zero = MASK64(ZERO);
    m->open = MASK64(OPEN);
#undef MASK64
#undef Q_
#undef B_
#undef L_
#undef COMMA_
#undef COLON_
#undef CLOSE_
#undef BLANK_
#undef DIGIT_
#undef ZERO_
#undef OPEN_
}

/* classify() on AVX-512BW: one 64-byte load and lookup, and each mask one
 * compare or test into a mask register (no movemask halves and shifts). */
__attribute__((target("avx512bw"), always_inline)) static inline void classify512(const char *s, struct blk *m)
{
    const __m512i lo_tab = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)cls_lo));
    const __m512i hi_tab = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)cls_hi));
    const __m512i nib = _mm512_set1_epi8(0x0F);
    __m512i v = _mm512_loadu_si512((const void *)s);
    __m512i c = _mm512_and_si512(_mm512_shuffle_epi8(lo_tab, _mm512_and_si512(v, nib)),
                                 _mm512_shuffle_epi8(hi_tab, _mm512_and_si512(_mm512_srli_epi16(v, 4), nib)));
    m->quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    m->bslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
    m->lt20 = _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(0x20)); /* signed: bytes >= 0x80 too */
    m->comma = _mm512_test_epi8_mask(c, _mm512_set1_epi8(1));
    m->colon = _mm512_test_epi8_mask(c, _mm512_set1_epi8(2));
    m->close = _mm512_test_epi8_mask(c, _mm512_set1_epi8(4));
    m->blank = _mm512_test_epi8_mask(c, _mm512_set1_epi8(8 | 16));
    m->digit = _mm512_test_epi8_mask(c, _mm512_set1_epi8(32));
    m->zero = _mm512_test_epi8_mask(c, _mm512_set1_epi8(64));
    m->open = _mm512_test_epi8_mask(c, _mm512_set1_epi8(-128));
}

/* Bit i set when an odd number of bits 0..i of x are set: one carry-less
 * multiply by all ones. */
__attribute__((target("pclmul"))) static inline uint64_t prefix_xor(uint64_t x)
{
    __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8(-1), 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}

/* a + b + *carry (0 or 1); *carry becomes the carry out. */
static inline uint64_t add_carry(uint64_t a, uint64_t b, uint64_t *carry)
{
    unsigned long long s;
    *carry = _addcarry_u64((unsigned char)*carry, a, b, &s); /* one adc */
    return s;
}

/* The first non-blank byte after each position of after (bits), found by
 * carrying each bit over the blanks; *pending (0 or 1) is a search begun in
 * the previous block that starts at bit 0, and becomes 1 when one goes on past
 * bit 63. */
static inline uint64_t follows(uint64_t after, uint64_t blank, uint64_t *pending)
{
    return add_carry(after, blank, pending) & ~blank;
}

/* follows() for the bytes after single-byte tokens at the bits of t (a token
 * at bit 63 starts a search in the next block). */
static inline uint64_t follows_tok(uint64_t t, uint64_t blank, uint64_t *pending)
{
    uint64_t r = follows(t << 1, blank, pending);
    *pending |= t >> 63;
    return r;
}

/* The walk for AVX2 and for AVX-512BW (json_block.h, compiled twice): the
 * same code, the 64 bytes classified by classify() or classify512(). */
#define BLOCK_TARGET "avx2,pclmul,popcnt"
#define BLOCK_CLASSIFY classify
#define BLOCK_SKIP block_skip
#define BLOCK_FAST_SKIP fast_skip_block
#include "read/json_block.h"
#undef BLOCK_TARGET
#undef BLOCK_CLASSIFY
#undef BLOCK_SKIP
#undef BLOCK_FAST_SKIP
#define BLOCK_TARGET "avx2,pclmul,popcnt,avx512bw,bmi,bmi2"
#define BLOCK_CLASSIFY classify512
#define BLOCK_SKIP block_skip512
#define BLOCK_FAST_SKIP fast_skip_block512
#include "read/json_block.h"
#undef BLOCK_TARGET
#undef BLOCK_CLASSIFY
#undef BLOCK_SKIP
#undef BLOCK_FAST_SKIP
#endif

typedef const char *(*skip_fn)(const char *p, const char *end);

/* Whether this CPU runs a fast path (the portable one always). The answer is
 * computed once: bit 0 says it is known, bit 1 AVX2, bit 2 AVX2, PCLMUL and
 * POPCNT, bit 3 those and AVX-512BW, BMI1 and BMI2 (relaxed atomics: threads
 * that race compute the same bits). */
static int cpu_runs(int path)
{
    static int known;
    int bits = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (!bits) {
        bits = 1;
#ifdef STINT_JSON_HAVE_AVX2
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2"))
            bits |= 2 | (__builtin_cpu_supports("pclmul") && __builtin_cpu_supports("popcnt") ? 4 : 0);
        if ((bits & 4) && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("bmi") &&
            __builtin_cpu_supports("bmi2"))
            bits |= 8;
#endif
        __atomic_store_n(&known, bits, __ATOMIC_RELAXED);
    }
    if (path == STINT_I_JSON_FAST_TOKEN || path == STINT_I_JSON_FAST_DIGITS)
        return bits & 2;
    if (path == STINT_I_JSON_FAST_BLOCK)
        return bits & 4;
    if (path == STINT_I_JSON_FAST_BLOCK512)
        return bits & 8;
    return path == STINT_I_JSON_FAST_SWAR;
}

/* The function of a fast path, NULL where this build or CPU lacks it. */
static skip_fn path_fn(int path)
{
    if (!cpu_runs(path))
        return NULL;
#ifdef STINT_JSON_HAVE_AVX2
    if (path == STINT_I_JSON_FAST_TOKEN)
        return fast_skip_avx2;
    if (path == STINT_I_JSON_FAST_DIGITS)
        return fast_skip_avx2_digits;
    if (path == STINT_I_JSON_FAST_BLOCK)
        return fast_skip_block;
    if (path == STINT_I_JSON_FAST_BLOCK512)
        return fast_skip_block512;
#endif
    return fast_skip_swar;
}

/* The best path this CPU runs: the block walk on AVX-512BW, else on AVX2,
 * else the portable one. STINT_NO_AVX2=1 forces the portable one;
 * STINT_JSON_SKIP=swar|token|digits|block|block512 picks one (for
 * measurements and tests; the portable one where the CPU lacks it). */
static skip_fn pick_fast_skip(void)
{
    static const char *const names[] = {"", "swar", "token", "digits", "block", "block512"};
    const char *want = getenv("STINT_JSON_SKIP");
    if (getenv("STINT_NO_AVX2"))
        return fast_skip_swar;
    for (int i = 1; want && i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(want, names[i])) {
            skip_fn f = path_fn(i);
            return f ? f : fast_skip_swar;
        }
    skip_fn f = path_fn(STINT_I_JSON_FAST_BLOCK512);
    if (!f)
        f = path_fn(STINT_I_JSON_FAST_BLOCK);
    return f ? f : fast_skip_swar;
}

static skip_fn fast_skip_impl;

static const char *fast_skip(const char *p, const char *end)
{
    /* relaxed atomics: reader threads may race here, and all pick the same pointer */
    skip_fn f = __atomic_load_n(&fast_skip_impl, __ATOMIC_RELAXED);
    if (!f) {
        f = pick_fast_skip();
        __atomic_store_n(&fast_skip_impl, f, __ATOMIC_RELAXED);
    }
    return f(p, end);
}

int stint_json_skip(struct stint_json *j)
{
    const char *e = fast_skip(j->p, j->end);
    if (e) {
        j->p = e;
        return STINT_JSON_OK;
    }
    return stint_i_json_skip_general(j);
}


const char *stint_i_json_fast_skip(const char *p, const char *end, int path)
{
    skip_fn f = path == STINT_I_JSON_FAST_AUTO ? fast_skip : path_fn(path);
    return f ? f(p, end) : NULL;
}
