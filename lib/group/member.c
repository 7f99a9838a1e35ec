/* Members of a classic group: lookup, protocols, protocol selection. */
#include <string.h>

#include "base/endian.h"
#include "group/grp_int.h"

gc_member *lr_gci_member(const gc_group *g, const char *id)
{
    if (!id)
        return NULL;
    for (size_t i = 0; i < g->n; i++)
        if (strcmp(g->m[i]->id, id) == 0)
            return g->m[i];
    return NULL;
}

gc_member *lr_gci_static_member(const gc_group *g, const char *instance_id)
{
    if (!instance_id)
        return NULL;
    for (size_t i = 0; i < g->n; i++)
        if (g->m[i]->instance_id && strcmp(g->m[i]->instance_id, instance_id) == 0)
            return g->m[i];
    return NULL;
}

static void protos_free(lr_gc *gc, gc_proto *ps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        lr_gci_strfree(gc, ps[i].name);
        lr_free(&gc->alloc, ps[i].md, ps[i].len);
    }
    lr_free(&gc->alloc, ps, n * sizeof *ps);
}

void lr_gci_member_free(lr_gc *gc, gc_member *m)
{
    if (!m)
        return;
    lr_gci_strfree(gc, m->id);
    lr_gci_strfree(gc, m->instance_id);
    lr_gci_strfree(gc, m->client_id);
    lr_gci_strfree(gc, m->client_host);
    protos_free(gc, m->protos, m->n_protos);
    lr_free(&gc->alloc, m->assignment, m->assignment_len);
    lr_free(&gc->alloc, m, sizeof *m);
}

int lr_gci_member_add(lr_gc *gc, gc_group *g, gc_member *m)
{
    if (lr_gci_reserve_scratch(gc, g->n + 1))
        return LOGREP_ERR__NOMEM;
    if (g->n == g->cap) {
        size_t nc = g->cap ? 2 * g->cap : 4;
        gc_member **p = lr_realloc(&gc->alloc, g->m, g->cap * sizeof *p, nc * sizeof *p);
        if (!p)
            return LOGREP_ERR__NOMEM;
        g->m = p;
        g->cap = nc;
    }
    if (!g->leader)
        g->leader = m->id;
    g->m[g->n++] = m;
    if (m->awaiting_join)
        g->n_awaiting_join++;
    return 0;
}

/* Removes m from g (not freed); a new leader is the first member left. */
void lr_gci_member_unlink(gc_group *g, gc_member *m)
{
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->m[i] != m)
            g->m[k++] = g->m[i];
    g->n = k;
    if (m->awaiting_join && g->n_awaiting_join)
        g->n_awaiting_join--;
    if (g->leader == m->id)
        g->leader = g->n ? g->m[0]->id : NULL;
}

int lr_gci_set_protocols(lr_gc *gc, gc_member *m, const lr_gc_protocol *ps, size_t n)
{
    gc_proto *np = lr_calloc(&gc->alloc, n ? n : 1, sizeof *np);
    if (!np)
        return LOGREP_ERR__NOMEM;
    for (size_t i = 0; i < n; i++) {
        np[i].name = lr_gci_strdup(gc, ps[i].name);
        np[i].len = ps[i].metadata_len;
        np[i].md = np[i].len ? lr_malloc(&gc->alloc, np[i].len) : NULL;
        if (!np[i].name || (np[i].len && !np[i].md)) {
            protos_free(gc, np, n ? n : 1);
            return LOGREP_ERR__NOMEM;
        }
        if (np[i].len)
            memcpy(np[i].md, ps[i].metadata, np[i].len);
    }
    protos_free(gc, m->protos, m->n_protos ? m->n_protos : (m->protos ? 1 : 0));
    m->protos = np;
    m->n_protos = n;
    return 0;
}

int lr_gci_same_protocols(const gc_member *m, const lr_gc_protocol *ps, size_t n)
{
    if (m->n_protos != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(m->protos[i].name, ps[i].name) != 0 || m->protos[i].len != ps[i].metadata_len ||
            (n && m->protos[i].len && memcmp(m->protos[i].md, ps[i].metadata, m->protos[i].len)))
            return 0;
    return 1;
}

const gc_proto *lr_gci_proto(const gc_member *m, const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < m->n_protos; i++)
        if (strcmp(m->protos[i].name, name) == 0)
            return &m->protos[i];
    return NULL;
}

/* Members that support protocol name. */
static size_t support(const gc_group *g, const char *name)
{
    size_t c = 0;
    for (size_t i = 0; i < g->n; i++)
        if (lr_gci_proto(g->m[i], name))
            c++;
    return c;
}

/* Kafka's ClassicGroup.supportsProtocols. */
int lr_gci_supports(const gc_group *g, const char *type, const lr_gc_protocol *ps, size_t n)
{
    if (g->n == 0)
        return type && type[0] && n > 0;
    if (!type || !g->protocol_type || strcmp(type, g->protocol_type) != 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (support(g, ps[i].name) == g->n)
            return 1;
    return 0;
}

/* The member's vote: its first protocol every member supports. */
static const char *vote(const gc_group *g, const gc_member *m)
{
    for (size_t i = 0; i < m->n_protos; i++)
        if (support(g, m->protos[i].name) == g->n)
            return m->protos[i].name;
    return NULL;
}

/* Kafka's ClassicGroup.selectProtocol: the candidate with the most votes;
 * among equal counts the first one a java.util.HashMap of the votes
 * iterates (bucket (h ^ h >>> 16) & (size - 1), then insertion order). */
const char *lr_gci_select_protocol(const gc_group *g)
{
    size_t k = 0; /* distinct protocols voted for: at most the members */
    for (size_t i = 0; i < g->n; i++) {
        const char *v = vote(g, g->m[i]);
        int first = v != NULL;
        for (size_t j = 0; j < i && first; j++) {
            const char *w = vote(g, g->m[j]);
            if (w && strcmp(w, v) == 0)
                first = 0;
        }
        k += first;
    }
    if (!k)
        return NULL;
    uint32_t size = 16;
    while (k > (size_t)size * 3 / 4)
        size *= 2;
    const char *best = NULL;
    size_t best_votes = 0;
    uint32_t best_bucket = 0;
    for (size_t i = 0; i < g->n; i++) {
        const char *v = vote(g, g->m[i]);
        int first = v != NULL;
        size_t votes = 0;
        for (size_t j = 0; j < g->n && v; j++) {
            const char *w = vote(g, g->m[j]);
            if (w && strcmp(w, v) == 0) {
                votes++;
                if (j < i)
                    first = 0;
            }
        }
        if (!first)
            continue;
        uint32_t h = (uint32_t)lr_gr_java_hash((const uint8_t *)v, strlen(v));
        uint32_t bucket = (h ^ (h >> 16)) & (size - 1);
        /* Iteration order is (bucket, insertion): the first max wins. */
        if (!best || votes > best_votes || (votes == best_votes && bucket < best_bucket)) {
            best = v;
            best_votes = votes;
            best_bucket = bucket;
        }
    }
    return best;
}

int lr_gci_pending_index(const gc_group *g, const char *id)
{
    if (!id)
        return -1;
    for (size_t i = 0; i < g->n_pend; i++)
        if (strcmp(g->pend[i].id, id) == 0)
            return (int)i;
    return -1;
}

void lr_gci_pending_del(lr_gc *gc, gc_group *g, size_t i)
{
    lr_gci_strfree(gc, g->pend[i].id);
    g->pend[i] = g->pend[--g->n_pend];
}

void lr_gci_transition(gc_group *g, int state, int64_t now_ms)
{
    g->prev_state = g->state;
    g->state = state;
    g->state_ts = now_ms;
}

/* ConsumerProtocolSubscription (all versions start alike): int16 version,
 * topics array of int16-length strings. */
int lr_gci_subscribes(const uint8_t *md, size_t len, const char *topic)
{
    if (!md || len < 6)
        return 0;
    int32_t n = (int32_t)lr_get_be32(md + 2);
    size_t at = 6, tl = strlen(topic);
    for (int32_t i = 0; i < n; i++) {
        if (len - at < 2)
            return 0;
        int16_t sl = (int16_t)lr_get_be16(md + at);
        at += 2;
        if (sl < 0 || len - at < (size_t)sl)
            return 0;
        if ((size_t)sl == tl && memcmp(md + at, topic, tl) == 0)
            return 1;
        at += (size_t)sl;
    }
    return 0;
}

/* Kafka's validateExistingMember. */
int lr_gci_validate_member(const gc_group *g, const char *member_id, const char *instance_id)
{
    if (!instance_id)
        return lr_gci_member(g, member_id) ? 0 : LOGREP_ERR_UNKNOWN_MEMBER_ID;
    const gc_member *s = lr_gci_static_member(g, instance_id);
    if (!s)
        return LOGREP_ERR_UNKNOWN_MEMBER_ID;
    return member_id && strcmp(s->id, member_id) == 0 ? 0 : LOGREP_ERR_FENCED_INSTANCE_ID;
}
