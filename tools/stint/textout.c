/*
 * textout.c - JSON string escaping and CSV quoting for the writers.
 * Bytes are copied as they are (input strings were validated as UTF-8 by the
 * readers); only '"', '\\' and control bytes are escaped.
 */
#include "textout.h"

#include <string.h>

void stint_out_json_str(FILE *f, const char *s, size_t len)
{
    putc('"', f);
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        fwrite(s + run, 1, i - run, f);
        run = i + 1;
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default: fprintf(f, "\\u%04x", c); break;
        }
    }
    fwrite(s + run, 1, len - run, f);
    putc('"', f);
}

void stint_out_csv_str(FILE *f, const char *s, size_t len)
{
    int quote = 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') {
            quote = 1;
            break;
        }
    if (!quote) {
        fwrite(s, 1, len, f);
        return;
    }
    putc('"', f);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"')
            putc('"', f);
        putc(s[i], f);
    }
    putc('"', f);
}
