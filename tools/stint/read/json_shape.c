/* SPDX-License-Identifier: MIT */
/*
 * json_shape.c - the shape cache of json_shape.h (see there for why a shape
 * match gives what the fast skip gives).
 *
 * The skeleton of 64 bytes: a mask of the digits, the first digit of each run
 * replaced by '0' and the others dropped (VBMI2's byte compression), written
 * on at the skeleton's end. A lookup builds the skeleton block by block and,
 * at each '}' of the object, looks for a shape of exactly that skeleton: a
 * bit per length says whether any shape has it, a hash of the skeleton
 * (multiplies in vector registers as the chunks come) finds its slot (open
 * addressing), and the shape's bytes are compared in full. Each shape
 * stores its skeleton and, one bit per skeleton byte, which of its digit
 * runs are a number's integer part (where a leading zero is invalid).
 */
#include "read/json_shape.h"

#include "read/json.h"
#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define SH_HAVE 1
#endif

#define SH_MAXRAW 512u /* an object longer than this gets no shape */
#define SH_BLOCKS (SH_MAXRAW / 64u)
#define SH_SLOTS 2048u /* a power of two, twice SH_MAX: probes stay short */
#define SH_MAX 1024u   /* shapes at most, then the cache starts over */
#define SH_ARENA ((size_t)384 << 10)
#define SH_WINDOW 1024u /* lookups per check of the hit rate */
#define SH_REST 16384u  /* objects skipped without a lookup after a poor window */

struct shape_slot {
    uint32_t hash;
    uint32_t at;  /* the shape's offset in the arena */
    uint16_t len; /* skeleton bytes; 0: empty */
};

struct stint_jshape {
    struct shape_slot slot[SH_SLOTS];
    uint64_t haslen[SH_MAXRAW / 64 + 1]; /* bit L: some shape has a skeleton of L bytes */
    unsigned n, maxlen;
    size_t used;
    unsigned char *arena; /* per shape: the skeleton (to 8 bytes), then its integer-run bits */
    uint32_t win_look, win_hit, rest;
    uint32_t hash_mask; /* ~0; 0 with STINT_JSON_SHAPES=collide (tests: every lookup compares) */
    struct stint_jshape_stats st;
    /* the skeleton being built: up to a block past SH_MAXRAW, and a full
     * 64-byte store after that */
    unsigned char skel[SH_MAXRAW + 192] __attribute__((aligned(64)));
};

void stint_i_jshape_stats(const struct stint_jshape *c, struct stint_jshape_stats *out)
{
    if (c)
        *out = c->st;
    else
        memset(out, 0, sizeof *out);
}

void stint_i_jshape_free(struct stint_jshape *c)
{
    if (c) {
        free(c->arena);
        free(c);
    }
}

#ifdef SH_HAVE

#define SH_TARGET "avx512f,avx512bw,avx512dq,avx512vbmi,avx512vbmi2,bmi,bmi2,popcnt"

static int cpu_has_shapes(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vbmi") &&
           __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
           __builtin_cpu_supports("popcnt");
}

struct stint_jshape *stint_i_jshape_new(void)
{
    const char *off = getenv("STINT_JSON_SHAPES");
    if ((off && !strcmp(off, "0")) || getenv("STINT_JSON_SKIP") || getenv("STINT_NO_AVX2") || !cpu_has_shapes())
        return NULL;
    void *mem = NULL;
    if (posix_memalign(&mem, 64, sizeof(struct stint_jshape)) != 0)
        return NULL;
    struct stint_jshape *c = memset(mem, 0, sizeof *c);
    c->hash_mask = off && !strcmp(off, "collide") ? 0 : ~(uint32_t)0;
    c->arena = malloc(SH_ARENA); /* touched as shapes are added */
    if (!c->arena) {
        free(c);
        return NULL;
    }
    return c;
}

static inline size_t round8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* Whether a[0..len) == b[0..len); reads no byte past len. */
__attribute__((target(SH_TARGET))) static inline int same_bytes(const unsigned char *a, const unsigned char *b,
                                                                 unsigned len)
{
    for (unsigned i = 0; i < len; i += 64) {
        __mmask64 m = len - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (len - i)) - 1;
        __m512i x = _mm512_maskz_loadu_epi8(m, a + i), y = _mm512_maskz_loadu_epi8(m, b + i);
        if (_mm512_cmpneq_epi8_mask(x, y))
            return 0;
    }
    return 1;
}

/* The shape whose skeleton is c->skel[0..len) (hash h), or NULL. */
__attribute__((target(SH_TARGET))) static const unsigned char *find_shape(const struct stint_jshape *c, uint32_t h,
                                                                          unsigned len)
{
    for (unsigned i = h & (SH_SLOTS - 1);; i = (i + 1) & (SH_SLOTS - 1)) {
        const struct shape_slot *s = &c->slot[i];
        if (!s->len)
            return NULL;
        if (s->hash == h && s->len == len && same_bytes(c->arena + s->at, c->skel, len))
            return c->arena + s->at;
    }
}

/* One block's skeleton: v's digits (*dig) with the first of each run made
 * '0' and the rest dropped, compressed to the front (*keep: the bytes kept,
 * *rs: the runs' first digits); *carry: whether the byte before the block
 * was a digit, updated. */
__attribute__((target(SH_TARGET), always_inline)) static inline __m512i skel_block(__m512i v, uint64_t *carry,
                                                                                   uint64_t *keep, uint64_t *rs,
                                                                                   uint64_t *dig)
{
    const __m512i zero = _mm512_set1_epi8('0');
    uint64_t d = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(v, zero), _mm512_set1_epi8(10));
    uint64_t r = d & ~((d << 1) | *carry);
    *carry = d >> 63;
    *keep = ~d | r;
    *rs = r;
    *dig = d;
    return _mm512_maskz_compress_epi8(*keep, _mm512_mask_blend_epi8(r, v, zero));
}

static const unsigned char iota64[64] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                         16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
                                         32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
                                         48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

/* The skeleton as it is built: whole 64-byte chunks stored at c->skel, the
 * chunk being filled kept in a register (and stored too, so that the
 * compare can read it). Every store is one aligned chunk: a load then finds
 * its bytes in one store (pieces stored at the skeleton's end, overlapping,
 * made each load wait for the stores to retire).
 *
 * The hash of a skeleton S of len bytes, from registers as the chunks come:
 * st = 0, then st = (st ^ chunk) * K1 (64-bit lanes) for each whole chunk of
 * S, then st = (st ^ tail ^ len) * K2 with tail S's last len % 64 bytes
 * (zero-padded), folded to 32 bits. A lookup at a '}' needs the state over
 * the whole chunks before it: those of the skeleton so far (hcur), or all
 * but the last if that one was completed by the current block (hprev). */
struct skel_out {
    __m512i acc;   /* the chunk being filled: its first fill bytes */
    __m512i last;  /* the last whole chunk */
    __m512i hcur;  /* the hash state over the whole chunks */
    __m512i hprev; /* the same without the last one */
    unsigned fill; /* bytes in acc */
    unsigned full; /* whole chunks stored */
};

/* the multipliers of the lanes: the golden ratio (hash.h), then xxHash64's second prime */
#define SH_K1 STINT_HASH_GOLDEN
#define SH_K2 0xC2B2AE3D27D4EB4FULL

__attribute__((target(SH_TARGET), always_inline)) static inline void skel_start(struct skel_out *o)
{
    o->acc = o->last = o->hcur = o->hprev = _mm512_setzero_si512();
    o->fill = o->full = 0;
}

/* Appends the first cnt bytes of piece to the skeleton. */
__attribute__((target(SH_TARGET), always_inline)) static inline void skel_put(unsigned char *skel, struct skel_out *o,
                                                                              __m512i piece, unsigned cnt)
{
    const __m512i iota = _mm512_loadu_si512((const void *)iota64);
    __m512i shift = _mm512_set1_epi8((char)(64 - o->fill));
    /* acc's first fill bytes, then piece's: index i >= fill takes piece[i - fill] (64 + ...) */
    __mmask64 hi = _mm512_cmpge_epu8_mask(iota, _mm512_set1_epi8((char)o->fill));
    __m512i merged = _mm512_permutex2var_epi8(o->acc, _mm512_mask_add_epi8(iota, hi, iota, shift), piece);
    unsigned total = o->fill + cnt;
    if (total >= 64) {
        _mm512_store_si512((void *)(skel + 64 * o->full), merged);
        o->full++;
        o->last = merged;
        o->hprev = o->hcur;
        o->hcur = _mm512_mullo_epi64(_mm512_xor_si512(o->hcur, merged), _mm512_set1_epi64((long long)SH_K1));
        o->acc = _mm512_permutexvar_epi8(_mm512_add_epi8(iota, shift), piece); /* what did not fit */
        o->fill = total - 64;
    } else {
        o->acc = merged;
        o->fill = total;
    }
    _mm512_store_si512((void *)(skel + 64 * o->full), o->acc);
}

/* The hash of the skeleton's first len bytes (64 * (full - 1) < len <= 64 * full + fill). */
__attribute__((target(SH_TARGET), always_inline)) static inline uint32_t skel_hash(const struct skel_out *o,
                                                                                   unsigned len)
{
    unsigned whole = len / 64, rest = len % 64;
    __m512i st = whole == o->full ? o->hcur : o->hprev;
    __m512i tail = whole == o->full ? o->acc : o->last;
    tail = _mm512_maskz_mov_epi8(((__mmask64)1 << rest) - 1, tail); /* rest < 64 */
    st = _mm512_xor_si512(_mm512_xor_si512(st, tail), _mm512_set1_epi64((long long)len));
    st = _mm512_mullo_epi64(st, _mm512_set1_epi64((long long)SH_K2));
    st = _mm512_xor_si512(st, _mm512_srli_epi64(st, 29));
    /* the lanes folded by XOR (the library's add reduction adds signed lanes: overflow) */
    __m256i x = _mm256_xor_si256(_mm512_castsi512_si256(st), _mm512_extracti64x4_epi64(st, 1));
    __m128i y = _mm_xor_si128(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
    uint64_t h = (uint64_t)_mm_cvtsi128_si64(y) ^ (uint64_t)_mm_extract_epi64(y, 1);
    return (uint32_t)(h ^ (h >> 32));
}

/* The end of the object at p (its '}' at a recorded skeleton), or NULL. */
__attribute__((target(SH_TARGET))) static const char *shape_find(struct stint_jshape *c, const char *p,
                                                                  const char *end)
{
    const __m512i zero = _mm512_set1_epi8('0'), close = _mm512_set1_epi8('}');
    uint16_t zpos[8]; /* skeleton positions of runs that start with a 0 followed by a digit */
    unsigned nz = 0;
    uint64_t carry = 0;
    struct skel_out o;
    skel_start(&o);
    for (unsigned k = 0; k < SH_BLOCKS; k++) {
        const char *b = p + 64 * k;
        unsigned off = 64 * o.full + o.fill;
        if (b >= end || off > c->maxlen)
            return NULL;
        size_t left = (size_t)(end - b);
        __mmask64 lm = left >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << left) - 1;
        __m512i v = _mm512_maskz_loadu_epi8(lm, b); /* past the window end: zeros, in no shape */
        uint64_t keep, rs, dig;
        __m512i piece = skel_block(v, &carry, &keep, &rs, &dig);
        skel_put(c->skel, &o, piece, (unsigned)__builtin_popcountll(keep));
        /* a backslash, which no shape holds: no '}' after it can end a match
         * (other such bytes only fail the compare) */
        uint64_t odd = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
        /* a run's 0 followed by a digit (or maybe, at the block's last byte) */
        for (uint64_t z = rs & _mm512_cmpeq_epi8_mask(v, zero) & ((dig >> 1) | 1ULL << 63); z; z &= z - 1) {
            if (nz == 8)
                return NULL;
            zpos[nz++] = (uint16_t)(off + (unsigned)__builtin_popcountll(keep & ((1ULL << __builtin_ctzll(z)) - 1)));
        }
        for (uint64_t cb = _mm512_mask_cmpeq_epi8_mask(lm, v, close); cb; cb &= cb - 1) {
            unsigned at = (unsigned)__builtin_ctzll(cb);
            uint64_t upto = ~0ULL >> (63 - at);
            unsigned len = off + (unsigned)__builtin_popcountll(keep & upto);
            if (len > c->maxlen || (odd & upto))
                return NULL;
            if (!(c->haslen[len >> 6] >> (len & 63) & 1))
                continue;
            const unsigned char *s = find_shape(c, skel_hash(&o, len) & c->hash_mask, len);
            if (!s)
                continue;
            const uint64_t *ints = (const uint64_t *)(const void *)(s + round8(len));
            unsigned i = 0;
            while (i < nz && (zpos[i] >= len || !(ints[zpos[i] >> 6] >> (zpos[i] & 63) & 1)))
                i++;
            if (i < nz) /* a leading zero in an integer part: the fast skip decides */
                return NULL;
            return b + at + 1;
        }
        if (odd)
            return NULL;
    }
    return NULL;
}

/* Empties the cache. */
static void shapes_reset(struct stint_jshape *c)
{
    memset(c->slot, 0, sizeof c->slot);
    memset(c->haslen, 0, sizeof c->haslen);
    c->n = 0;
    c->maxlen = 0;
    c->used = 0;
    c->st.resets++;
}

/* Records the shape of the object p[0..n), which the fast skip accepted,
 * when it qualifies (printable ASCII, no backslash, at most SH_MAXRAW bytes)
 * and is not recorded yet. */
__attribute__((target(SH_TARGET))) static void shape_add(struct stint_jshape *c, const char *p, size_t n)
{
    if (n < 2 || n > SH_MAXRAW)
        return;
    uint64_t carry = 0;
    struct skel_out o;
    skel_start(&o);
    for (size_t i = 0; i < n; i += 64) {
        __mmask64 lm = n - i >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << (n - i)) - 1;
        __m512i v = _mm512_maskz_loadu_epi8(lm, p + i);
        if (_mm512_mask_cmplt_epu8_mask(lm, v, _mm512_set1_epi8(0x20)) |
            _mm512_mask_cmpgt_epu8_mask(lm, v, _mm512_set1_epi8(0x7E)) |
            _mm512_mask_cmpeq_epi8_mask(lm, v, _mm512_set1_epi8('\\')))
            return;
        uint64_t keep, rs, dig;
        __m512i piece = skel_block(v, &carry, &keep, &rs, &dig);
        skel_put(c->skel, &o, piece, (unsigned)__builtin_popcountll(keep & lm));
    }
    unsigned len = 64 * o.full + o.fill;
    uint32_t h = skel_hash(&o, len) & c->hash_mask;
    if (find_shape(c, h, len))
        return;
    size_t need = round8(len) + 8 * ((len + 63) / 64);
    if (c->n == SH_MAX || c->used + need > SH_ARENA)
        shapes_reset(c);
    unsigned char *s = c->arena + c->used;
    memcpy(s, c->skel, len);
    uint64_t *ints = (uint64_t *)(void *)(s + round8(len));
    memset(ints, 0, 8 * ((len + 63) / 64));
    /* the integer parts: digit runs outside strings not after '.', an
     * exponent's e/E or its sign */
    unsigned si = 0;
    int in_str = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        int digit = (unsigned)(ch - '0') < 10;
        if (digit && (unsigned)((unsigned char)p[i - 1] - '0') < 10) /* i > 0: p[0] is '{' */
            continue;
        if (digit && !in_str) {
            unsigned char pr = (unsigned char)p[i - 1];
            int later = pr == '.' || pr == 'e' || pr == 'E' || pr == '+' ||
                        (pr == '-' && i >= 2 && (p[i - 2] == 'e' || p[i - 2] == 'E'));
            if (!later)
                ints[si >> 6] |= 1ULL << (si & 63);
        }
        if (ch == '"')
            in_str = !in_str;
        si++;
    }
    if (si != len) /* cannot happen: the two walks count the same bytes */
        return;
    unsigned i = h & (SH_SLOTS - 1);
    while (c->slot[i].len)
        i = (i + 1) & (SH_SLOTS - 1);
    c->slot[i] = (struct shape_slot){.hash = h, .at = (uint32_t)c->used, .len = (uint16_t)len};
    c->used += need;
    c->n++;
    c->haslen[len >> 6] |= 1ULL << (len & 63);
    if (len > c->maxlen)
        c->maxlen = len;
    c->st.added++;
}

const char *stint_i_jshape_skip(struct stint_jshape *c, const char *p, const char *end)
{
    if (!c)
        return stint_i_json_fast_skip(p, end, STINT_I_JSON_FAST_AUTO);
    if (c->rest) {
        c->rest--;
        return stint_i_json_fast_skip(p, end, STINT_I_JSON_FAST_AUTO);
    }
    if (c->n) {
        c->st.lookups++;
        const char *e = shape_find(c, p, end);
        c->win_hit += e != NULL;
        if (++c->win_look == SH_WINDOW) {
            if (c->win_hit < SH_WINDOW / 4) { /* mostly new shapes: stop looking for a while */
                c->rest = SH_REST;
                c->st.dormant++;
            }
            c->win_look = c->win_hit = 0;
        }
        if (e) {
            c->st.hits++;
            return e;
        }
    }
    const char *e = stint_i_json_fast_skip(p, end, STINT_I_JSON_FAST_AUTO);
    if (e)
        shape_add(c, p, (size_t)(e - p));
    return e;
}

#else /* no shape path on this compiler or CPU family */

struct stint_jshape *stint_i_jshape_new(void)
{
    return NULL;
}

const char *stint_i_jshape_skip(struct stint_jshape *c, const char *p, const char *end)
{
    (void)c;
    return stint_i_json_fast_skip(p, end, STINT_I_JSON_FAST_AUTO);
}

#endif
