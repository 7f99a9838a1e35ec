/* Implemented API ranges, framing and the ApiVersions reply. */
#include "base/endian.h"
#include "proto/msg.h"

const logrep_api_range *logrep_proto_api_versions(size_t *n)
{
    if (n)
        *n = lr_proto_api_count;
    return lr_proto_ranges;
}

const logrep_api_range *logrep_proto_api(int api_key)
{
    const lr_papi *a = lr_proto_api_find(api_key);
    return a ? &lr_proto_ranges[a - lr_proto_apis] : NULL;
}

const char *logrep_proto_api_name(int api_key)
{
    const lr_papi *a = lr_proto_api_find(api_key);
    return a ? a->name : NULL;
}

logrep_err logrep_proto_frame(const void *buf, size_t len, int64_t max_bytes, size_t *frame_len)
{
    if (!frame_len || (!buf && len))
        return LOGREP_ERR__INVALID_ARG;
    if (max_bytes <= 0 || max_bytes > INT32_MAX)
        max_bytes = INT32_MAX;
    if (len < 4) {
        *frame_len = 4;
        return LOGREP_ERR__AGAIN;
    }
    int32_t size = (int32_t)lr_get_be32(buf);
    if (size < 0)
        return LOGREP_ERR__CORRUPT;
    if (size > max_bytes)
        return LOGREP_ERR__LIMIT;
    *frame_len = (size_t)size + 4;
    return len >= *frame_len ? LOGREP_OK : LOGREP_ERR__AGAIN;
}

logrep_err logrep_msg_fill_api_versions(logrep_msg *m)
{
    if (!m || m->state != LR_MSG_FULL || !m->is_resp || m->key != LOGREP_API_API_VERSIONS)
        return LOGREP_ERR__MISUSE;
    logrep_struct *root = m->root;
    int keys = logrep_struct_field(root, "ApiKeys");
    logrep_err err = logrep_struct_set_count(root, keys, (int32_t)lr_proto_api_count);
    for (size_t i = 0; !err && i < lr_proto_api_count; i++) {
        logrep_struct *e = logrep_struct_elem(root, keys, (int32_t)i);
        logrep_struct_set_int(e, 0, lr_proto_ranges[i].api_key);
        logrep_struct_set_int(e, 1, lr_proto_ranges[i].min_version);
        logrep_struct_set_int(e, 2, lr_proto_ranges[i].max_version);
    }
    return err;
}
