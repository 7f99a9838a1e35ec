/* The LeaderChange control record (docs/quorum.md, "The LeaderChange record"): key = int16 version 0,
 * int16 type 2; value = int16 version 0, then a flexible-version body:
 * LeaderId int32, Voters and GrantingVoters as compact arrays of
 * {VoterId int32, no tagged fields}, no tagged fields. */
#include "quorum/quorum.h"

static size_t put16(uint8_t *p, int16_t v)
{
    p[0] = (uint8_t)((uint16_t)v >> 8);
    p[1] = (uint8_t)v;
    return 2;
}

static size_t put32(uint8_t *p, int32_t v)
{
    uint32_t u = (uint32_t)v;
    p[0] = (uint8_t)(u >> 24);
    p[1] = (uint8_t)(u >> 16);
    p[2] = (uint8_t)(u >> 8);
    p[3] = (uint8_t)u;
    return 4;
}

/* Compact arrays write n + 1 as an unsigned varint; n <= MAX_VOTERS keeps
 * it one byte. */
static size_t put_voters(uint8_t *p, const int32_t *v, size_t n)
{
    size_t o = 0;
    p[o++] = (uint8_t)(n + 1);
    for (size_t i = 0; i < n; i++) {
        o += put32(p + o, v[i]);
        p[o++] = 0;
    }
    return o;
}

size_t lr_quorum_leader_change_key(uint8_t *out, size_t cap)
{
    if (!out || cap < 4)
        return 0;
    put16(out, 0);
    put16(out + 2, LR_QUORUM_CTL_LEADER_CHANGE);
    return 4;
}

size_t lr_quorum_leader_change_value(int32_t leader, const int32_t *voters, size_t n_voters,
                                     const int32_t *granting, size_t n_granting, uint8_t *out,
                                     size_t cap)
{
    if (!out || n_voters > LR_QUORUM_MAX_VOTERS || n_granting > LR_QUORUM_MAX_VOTERS ||
        (n_voters && !voters) || (n_granting && !granting))
        return 0;
    size_t need = 2 + 4 + 1 + 5 * n_voters + 1 + 5 * n_granting + 1;
    if (cap < need)
        return 0;
    size_t o = put16(out, 0);
    o += put32(out + o, leader);
    o += put_voters(out + o, voters, n_voters);
    o += put_voters(out + o, granting, n_granting);
    out[o++] = 0;
    return o;
}
