/* SPDX-License-Identifier: MIT */
/* Callable hashes: the four reference cases of stint_hid_of_elf, FNV-1a
 * vectors, and stint_hid_of_address against this binary's Build-ID as
 * `readelf -n` reports it (the test is linked with -Wl,--build-id). */
#include "check.h"
#include "internal.h"

#include <stdio.h>
#include <unistd.h>

/* A minimal ELF64: header, one PT_NOTE program header, one note. */
static size_t make_elf(unsigned char *b, size_t cap, const unsigned char *id, size_t idlen, int with_note)
{
    memset(b, 0, cap);
    memcpy(b, "\x7f" "ELF", 4);
    b[4] = 2; /* ELFCLASS64 */
    b[5] = 1; /* little-endian */
    b[6] = 1;
    size_t phoff = 64, note_off = 64 + 56;
    b[32] = (unsigned char)phoff;            /* e_phoff */
    b[54] = 56;                              /* e_phentsize */
    b[56] = with_note ? 1 : 0;               /* e_phnum */
    unsigned char *ph = b + phoff;
    ph[0] = 4;                               /* PT_NOTE */
    ph[8] = (unsigned char)note_off;         /* p_offset */
    size_t note_len = 12 + 4 + ((idlen + 3) & ~(size_t)3);
    ph[32] = (unsigned char)note_len;        /* p_filesz */
    unsigned char *n = b + note_off;
    n[0] = 4;                                /* namesz */
    n[4] = (unsigned char)idlen;             /* descsz */
    n[8] = 3;                                /* NT_GNU_BUILD_ID */
    memcpy(n + 12, "GNU", 4);
    memcpy(n + 16, id, idlen);
    return note_off + note_len;
}

static uint64_t readelf_build_id(void)
{
    char cmd[4200], line[512];
    snprintf(cmd, sizeof cmd, "readelf -n /proc/%d/exe 2>/dev/null", (int)getpid());
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    uint64_t id = 0;
    while (fgets(line, sizeof line, p)) {
        char *s = strstr(line, "Build ID: ");
        if (!s)
            continue;
        s += 10;
        for (int i = 0; i < 8; i++) { /* first 8 bytes, little-endian */
            unsigned byte;
            if (sscanf(s + 2 * i, "%2x", &byte) != 1)
                break;
            id |= (uint64_t)byte << (8 * i);
        }
        break;
    }
    pclose(p);
    return id;
}

#include <unistd.h>

int main(void)
{
    unsigned char b[512], id[20];
    for (int i = 0; i < 20; i++)
        id[i] = (unsigned char)(0x10 + i);
    size_t len = make_elf(b, sizeof b, id, 20, 1);
    CHECK_EQ_U64(stint_hid_of_elf(b, len), 0x1716151413121110ULL);

    unsigned char aa[20], bb[20];
    memset(aa, 0xAA, 20);
    memset(bb, 0xBB, 20);
    size_t la = make_elf(b, sizeof b, aa, 20, 1);
    uint64_t ha = stint_hid_of_elf(b, la);
    size_t lb = make_elf(b, sizeof b, bb, 20, 1);
    uint64_t hb = stint_hid_of_elf(b, lb);
    CHECK_EQ_U64(ha, 0xAAAAAAAAAAAAAAAAULL);
    CHECK(ha != hb);

    const char *text = "not an elf at all";
    uint64_t h1 = stint_hid_of_elf(text, strlen(text));
    CHECK_EQ_U64(h1, stint_hid_of_elf(text, strlen(text)));
    CHECK_EQ_U64(h1, stint_fnv1a64(text, strlen(text)));
    CHECK(h1 != stint_hid_of_elf("another buffer", 14));

    /* ELF header without notes: FNV over the whole buffer, stably */
    size_t ln = make_elf(b, sizeof b, id, 20, 0);
    CHECK_EQ_U64(stint_hid_of_elf(b, ln), stint_fnv1a64(b, ln));

    /* a descriptor shorter than 8 bytes is not a usable build-id */
    size_t ls = make_elf(b, sizeof b, id, 4, 1);
    CHECK_EQ_U64(stint_hid_of_elf(b, ls), stint_fnv1a64(b, ls));

    /* truncated buffers never read outside themselves */
    for (size_t cut = 0; cut < len; cut++)
        (void)stint_hid_of_elf(b, cut);

    /* FNV-1a-64 reference vectors */
    CHECK_EQ_U64(stint_fnv1a64("", 0), 0xcbf29ce484222325ULL);
    CHECK_EQ_U64(stint_fnv1a64("a", 1), 0xaf63dc4c8601ec8cULL);
    CHECK_EQ_U64(stint_fnv1a64("foobar", 6), 0x85944171f73967e8ULL);

    uint64_t want = readelf_build_id();
    if (want == 0) {
        printf("note: readelf not available; hid_of_address only checked for nonzero\n");
        CHECK(stint_hid_of_address((const void *)main) != 0);
    } else {
        CHECK_EQ_U64(stint_hid_of_address((const void *)main), want);
    }
    CHECK_EQ_U64(stint_hid_of_address((const void *)0x10), 0);
    CHECK_DONE();
}
