/*
 * json.c - the strict JSON tokenizer (see json.h for the contract).
 *
 * Strings are scanned eight bytes at a time (SWAR) until a quote, a
 * backslash, a control byte or a non-ASCII byte; non-ASCII sequences are
 * validated as UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
 * Nothing allocates: skip() keeps its container stack as a bit stack.
 * Every function either consumes a complete token or leaves j->p unchanged.
 * skip() first tries a fast walk that accepts a strict subset of valid
 * values and otherwise starts over in the general skip, so errors and repair
 * counts have one source. The walk is chosen once at run time: objects and
 * arrays by 64-byte blocks of bit masks where the CPU has AVX2, PCLMUL and
 * POPCNT, else token by token (STINT_NO_AVX2=1 forces the portable token
 * walk; STINT_JSON_SKIP=swar|token|digits|block picks one, for measuring).
 */
#include "read/json.h"

#include <stdlib.h>
#include <string.h>

#define ERR(j, at, msg) ((j)->err = (msg), (j)->err_at = (at), STINT_JSON_ERR)

static inline uint64_t load64(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* Nonzero when some byte of w needs attention in a string body. */
static inline uint64_t special_bytes(uint64_t w)
{
    uint64_t q = w ^ (ONES * '"');
    uint64_t b = w ^ (ONES * '\\');
    uint64_t has_q = (q - ONES) & ~q;
    uint64_t has_b = (b - ONES) & ~b;
    uint64_t lt20 = (w - ONES * 0x20) & ~w;
    return (has_q | has_b | lt20 | w) & HIGHS;
}

static int read_u4(const char *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int h = stint_json_hexval((unsigned char)p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + (unsigned)h;
    }
    *out = v;
    return 0;
}

int stint_json_string(struct stint_json *j, const char **s, size_t *len, int *escaped)
{
    const char *start = j->p;
    const char *p = start + 1;
    const char *end = j->end;
    int esc = 0;
    /* counted here and added on success only, so a string retried after
     * MORE is not counted twice */
    uint64_t ctl = 0, lone = 0;
    for (;;) {
        while (p + 8 <= end) {
            uint64_t sp = special_bytes(load64(p));
            if (sp) {
                /* the lowest flagged byte is exact (borrows only run upward) */
                p += __builtin_ctzll(sp) >> 3;
                break;
            }
            p += 8;
        }
        if (p >= end)
            goto more;
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            break;
        if (c == '\\') {
            esc = 1;
            if (p + 1 >= end)
                goto more;
            char e = p[1];
            if (e == 'u') {
                if (p + 6 > end)
                    goto more;
                unsigned u;
                if (read_u4(p + 2, &u) != 0)
                    return ERR(j, p, "invalid \\u escape in string (expected 4 hex digits)");
                p += 6;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    /* a high surrogate wants a low one; a lone one is accepted (decoded as U+FFFD) */
                    if (p + 6 > end && !j->at_eof)
                        goto more;
                    unsigned lo;
                    if (p + 6 <= end && p[0] == '\\' && p[1] == 'u' && read_u4(p + 2, &lo) == 0 && lo >= 0xDC00 &&
                        lo <= 0xDFFF)
                        p += 6;
                    else
                        lone++;
                } else if (u >= 0xDC00 && u <= 0xDFFF)
                    lone++;
                continue;
            }
            if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                p += 2;
                continue;
            }
            return ERR(j, p, "invalid escape in string (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
        }
        if (c < 0x20) {
            if (!(j->flags & STINT_JSON_CONTROL_CHARS))
                return ERR(j, p, "control character in string (must be escaped)");
            if (p >= end)
                goto more;
            ctl++;
            p++;
            continue;
        }
        if (c < 0x80) {
            p++;
            continue;
        }
        int n = stint_json_utf8_seq((const unsigned char *)p, (const unsigned char *)end);
        if (n == 0)
            goto more;
        if (n < 0)
            return ERR(j, p, "invalid UTF-8 in string");
        p += n;
    }
    *s = start + 1;
    *len = (size_t)(p - start - 1);
    if (escaped)
        *escaped = esc;
    j->control_chars += ctl;
    j->lone_surrogates += lone;
    if (ctl && !j->cc_at)
        j->cc_at = start;
    if (lone && !j->ls_at)
        j->ls_at = start;
    j->p = p + 1;
    return STINT_JSON_OK;
more:
    if (j->at_eof)
        return ERR(j, start, "unterminated string (input ends inside it)");
    return STINT_JSON_MORE;
}

static int is_delim(int c)
{
    return c == 0 || c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == ':';
}

int stint_json_number(struct stint_json *j, const char **s, size_t *len)
{
    const char *p = j->p, *end = j->end;
    const char *start = p;
    if (p < end && *p == '-')
        p++;
    if (p >= end)
        goto more;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9') {
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    } else
        return ERR(j, p, "invalid number (expected a digit)");
    if (p < end && *p == '.') {
        p++;
        const char *d = p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        if (p == d) {
            if (p >= end)
                goto more;
            return ERR(j, p, "invalid number (expected a digit after '.')");
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        const char *d = p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        if (p == d) {
            if (p >= end)
                goto more;
            return ERR(j, p, "invalid number (expected exponent digits)");
        }
    }
    if (p >= end && !j->at_eof)
        goto more;
    if (p < end && !is_delim((unsigned char)*p))
        return ERR(j, p, "invalid number (unexpected character after it)");
    *s = start;
    *len = (size_t)(p - start);
    j->p = p;
    return STINT_JSON_OK;
more:
    if (j->at_eof)
        return ERR(j, start, "input ends inside a number");
    return STINT_JSON_MORE;
}

static int literal(struct stint_json *j, const char *word, size_t n)
{
    if ((size_t)(j->end - j->p) < n) {
        if (memcmp(j->p, word, (size_t)(j->end - j->p)) == 0)
            return j->at_eof ? ERR(j, j->p, "input ends inside a literal") : STINT_JSON_MORE;
        return ERR(j, j->p, "invalid literal (expected true, false or null)");
    }
    if (memcmp(j->p, word, n) != 0)
        return ERR(j, j->p, "invalid value (expected a string, number, object, array, true, false or null)");
    if (j->p + n < j->end && !is_delim((unsigned char)j->p[n]))
        return ERR(j, j->p + n, "invalid literal (unexpected character after it)");
    j->p += n;
    return STINT_JSON_OK;
}

static int skip_general(struct stint_json *j)
{
    const char *save = j->p;
    uint64_t *stack = NULL; /* 1 bit per level: 1 = object */
    uint64_t small[16];
    size_t depth = 0, cap_bits = sizeof small * 8;
    stack = small;
    int rc = STINT_JSON_OK;
    /* expect: 0 value, 1 key-or-close (just after '{'), 2 comma-or-close, 3 key (after ',') in object,
     * 4 value-or-close (just after '['), 5 value after ',' in array */
    int state = 0;
    for (;;) {
        int c = stint_json_ws(j);
        if (c == 0 && j->p >= j->end) {
            rc = j->at_eof ? ERR(j, j->p, "input ends inside a value") : STINT_JSON_MORE;
            break;
        }
        int in_obj = depth ? (int)((stack[(depth - 1) / 64] >> ((depth - 1) % 64)) & 1) : 0;
        if (state == 1 || state == 3) { /* object: key or '}' */
            if (c == '}' && (state == 1 || (j->flags & STINT_JSON_TRAILING_COMMA))) {
                if (state == 3)
                    stint_json_trailing_comma(j);
                j->p++;
                depth--;
                state = 2;
                goto closed;
            }
            if (c != '"') {
                rc = ERR(j, j->p, "expected a string key in object");
                break;
            }
            const char *s;
            size_t n;
            if ((rc = stint_json_string(j, &s, &n, NULL)) != STINT_JSON_OK)
                break;
            c = stint_json_ws(j);
            if (c != ':') {
                rc = (c == 0 && !j->at_eof) ? STINT_JSON_MORE : ERR(j, j->p, "expected ':' after object key");
                break;
            }
            j->p++;
            state = 0;
            continue;
        }
        if (state == 2) {
            if (c == ',') {
                j->p++;
                state = in_obj ? 3 : 5;
                continue;
            }
            if (c == (in_obj ? '}' : ']')) {
                j->p++;
                depth--;
                goto closed;
            }
            rc = ERR(j, j->p, in_obj ? "expected ',' or '}' in object" : "expected ',' or ']' in array");
            break;
        }
        if ((state == 4 || state == 5) && c == ']') {
            if (state == 5) {
                if (!(j->flags & STINT_JSON_TRAILING_COMMA)) {
                    rc = ERR(j, j->p, "trailing comma before ']'");
                    break;
                }
                stint_json_trailing_comma(j);
            }
            j->p++;
            depth--;
            goto closed;
        }
        /* a value */
        if (c == '{' || c == '[') {
            if (depth >= STINT_JSON_MAX_DEPTH) {
                rc = ERR(j, j->p, "nesting too deep");
                break;
            }
            if (depth + 1 > cap_bits) {
                size_t nb = cap_bits * 2;
                uint64_t *ns = calloc(nb / 64, sizeof *ns);
                if (!ns) {
                    rc = ERR(j, j->p, "out of memory for nesting");
                    break;
                }
                memcpy(ns, stack, cap_bits / 8);
                if (stack != small)
                    free(stack);
                stack = ns;
                cap_bits = nb;
            }
            uint64_t bit = 1ULL << (depth % 64);
            if (c == '{')
                stack[depth / 64] |= bit;
            else
                stack[depth / 64] &= ~bit;
            depth++;
            j->p++;
            state = c == '{' ? 1 : 4;
            continue;
        }
        if (c == '"') {
            const char *s;
            size_t n;
            rc = stint_json_string(j, &s, &n, NULL);
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            const char *s;
            size_t n;
            rc = stint_json_number(j, &s, &n);
        } else if (c == 't')
            rc = literal(j, "true", 4);
        else if (c == 'f')
            rc = literal(j, "false", 5);
        else if (c == 'n')
            rc = literal(j, "null", 4);
        else if (state == 1 || state == 3 || c == '}' || c == ']' || c == ',')
            rc = ERR(j, j->p, "expected a value");
        else
            rc = ERR(j, j->p, "invalid value (expected a string, number, object, array, true, false or null)");
        if (rc != STINT_JSON_OK)
            break;
        state = 2;
    closed:
        if (depth == 0)
            break;
        state = 2;
    }
    if (stack != small)
        free(stack);
    if (rc == STINT_JSON_MORE)
        j->p = save;
    return rc;
}

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
    return skip_general(j);
}

int stint_i_json_skip_general(struct stint_json *j)
{
    return skip_general(j);
}

const char *stint_i_json_fast_skip(const char *p, const char *end, int path)
{
    skip_fn f = path == STINT_I_JSON_FAST_AUTO ? fast_skip : path_fn(path);
    return f ? f(p, end) : NULL;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t stint_json_unescape(const char *s, size_t len, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] != '\\') {
            out[o++] = s[i++];
            continue;
        }
        char e = s[i + 1];
        if (e != 'u') {
            char r = e;
            switch (e) {
            case 'b': r = '\b'; break;
            case 'f': r = '\f'; break;
            case 'n': r = '\n'; break;
            case 'r': r = '\r'; break;
            case 't': r = '\t'; break;
            default: break;
            }
            out[o++] = r;
            i += 2;
            continue;
        }
        unsigned u = 0, lo = 0;
        if (i + 6 > len || read_u4(s + i + 2, &u) != 0) { /* validated input never gets here */
            out[o++] = '?';
            i += 2;
            continue;
        }
        i += 6;
        if (u >= 0xD800 && u <= 0xDBFF && i + 6 <= len && s[i] == '\\' && s[i + 1] == 'u' &&
            read_u4(s + i + 2, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            i += 6;
        } else if (u >= 0xD800 && u <= 0xDFFF)
            u = 0xFFFD;
        /* \u escapes always decode to at most 6 input bytes' worth of output */
        o += put_utf8(out + o, u);
    }
    return o;
}

int stint_json_validate(const char *buf, size_t len, unsigned flags, size_t *err_off, const char **err_msg)
{
    char *copy = malloc(len + STINT_JSON_PAD);
    if (!copy) {
        if (err_off)
            *err_off = 0;
        if (err_msg)
            *err_msg = "out of memory";
        return -1;
    }
    memcpy(copy, buf, len);
    memset(copy + len, 0, STINT_JSON_PAD);
    struct stint_json j = {.p = copy, .end = copy + len, .flags = flags, .at_eof = 1};
    int rc;
    if (stint_json_ws(&j) == 0 && j.p >= j.end)
        rc = ERR(&j, j.p, "empty input (expected a JSON value)");
    else {
        rc = stint_json_skip(&j);
        if (rc == STINT_JSON_OK && (stint_json_ws(&j) != 0 || j.p < j.end))
            rc = ERR(&j, j.p, "unexpected data after the JSON value");
    }
    if (rc != STINT_JSON_OK) {
        if (err_off)
            *err_off = (size_t)(j.err_at - copy);
        if (err_msg)
            *err_msg = j.err ? j.err : "invalid JSON";
    }
    free(copy);
    return rc == STINT_JSON_OK ? 0 : -1;
}
