/* Schema tables: every message described once, read by one codec.
 *
 * A struct is a list of fields. A field exists at versions [v0, v1], may
 * be null at [n0, n1] (n0 = -1: never), is tagged from t0 on (t0 = -1:
 * never; tagged versions always run to the field's last version) under
 * `tag`, and reads as `def` (numbers, booleans) or as empty / null
 * (LR_PF_DEFNULL) when absent. LR_PV_INF closes "N+" ranges. */
#ifndef LR_PROTO_SCHEMA_H
#define LR_PROTO_SCHEMA_H

#include <stddef.h>
#include <stdint.h>
#include <logrep/proto.h>
#include "field_names.h" /* generated: lr_fname, one constant per field name */

enum { LR_PV_INF = 127 };

enum {
    LR_PF_DEFNULL = 1,   /* default is null rather than empty */
    LR_PF_NOCOMPACT = 2  /* string stays non-compact in flexible versions */
};

typedef struct lr_pstruct lr_pstruct;

typedef struct lr_pfield {
    const char *name;
    uint16_t id;            /* lr_fname of the name */
    uint8_t type;           /* LOGREP_FT_* */
    uint8_t elem;           /* element type of an array */
    int8_t v0, v1;          /* versions present */
    int8_t n0, n1;          /* nullable versions */
    int8_t t0;              /* tagged from */
    uint8_t flags;          /* LR_PF_* */
    int32_t tag;
    int64_t def;
    const lr_pstruct *sub;  /* struct, or element struct of an array */
} lr_pfield;

struct lr_pstruct {
    const char *name;
    uint16_t nfields;
    const lr_pfield *fields;
};

typedef struct lr_papi {
    int16_t key;
    int8_t min, max;        /* implemented versions */
    int8_t flex;            /* first flexible version, LR_PV_INF: none */
    const char *name;
    const lr_pstruct *req, *resp;
} lr_papi;

/* Compact table rows: name (an identifier), type, element type, versions, nullable
 * versions, tagged-from, tag, default, flags, sub-struct. Table files
 * define X as LR_PV_INF for open ends. */
#define LR_F(name, type, elem, v0, v1, n0, n1, t0, tag, def, flags, sub) \
    { #name, LR_FN_##name, LOGREP_FT_##type, elem, v0, v1, n0, n1, t0, flags, tag, def, sub }

extern const lr_papi lr_proto_apis[];
extern const size_t lr_proto_api_count;
extern const logrep_api_range lr_proto_ranges[]; /* parallel to lr_proto_apis */
extern const lr_pstruct lr_proto_request_header;
extern const lr_pstruct lr_proto_response_header;

const lr_papi *lr_proto_api_find(int key);

static inline int lr_pf_has(const lr_pfield *f, int v) { return v >= f->v0 && v <= f->v1; }
static inline int lr_pf_nullable(const lr_pfield *f, int v) { return f->n0 >= 0 && v >= f->n0 && v <= f->n1; }
static inline int lr_pf_tagged(const lr_pfield *f, int v) { return f->t0 >= 0 && v >= f->t0; }

#endif
