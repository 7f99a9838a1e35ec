/* Header schemas and API lookup. */
#include "proto/schema.h"

#define X LR_PV_INF

/* Request header v0-v2: v1 adds ClientId, v2 the tagged-field section.
 * ClientId stays a non-compact string even in v2. */
static const lr_pfield request_header_f[] = {
    LR_F(RequestApiKey, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(RequestApiVersion, INT16, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(CorrelationId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
    LR_F(ClientId, STRING, 0, 1, X, 1, X, -1, -1, 0, LR_PF_NOCOMPACT | LR_PF_DEFNULL, NULL),
};
const lr_pstruct lr_proto_request_header = {"RequestHeader", 4, request_header_f};

/* Response header v0-v1: v1 adds the tagged-field section. */
static const lr_pfield response_header_f[] = {
    LR_F(CorrelationId, INT32, 0, 0, X, -1, -1, -1, -1, 0, 0, NULL),
};
const lr_pstruct lr_proto_response_header = {"ResponseHeader", 1, response_header_f};

const lr_papi *lr_proto_api_find(int key)
{
    size_t lo = 0, hi = lr_proto_api_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (lr_proto_apis[mid].key == key)
            return &lr_proto_apis[mid];
        if (lr_proto_apis[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}
