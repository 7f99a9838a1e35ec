/* Field access by generated constant (fields.h). */
#include "proto/fields.h"
#include "proto/msg.h"

int lr_fid(const logrep_struct *s, lr_fname id)
{
    if (!s || !s->s)
        return -1;
    for (int i = 0; i < s->s->nfields; i++)
        if (s->s->fields[i].id == (uint16_t)id)
            return i;
    return -1;
}

int64_t lr_f_int(const logrep_struct *s, lr_fname id)
{
    return logrep_struct_int(s, lr_fid(s, id));
}

int lr_f_set_int(logrep_struct *s, lr_fname id, int64_t v)
{
    return logrep_struct_set_int(s, lr_fid(s, id), v);
}

int lr_f_str(const logrep_struct *s, lr_fname id, const char **p, int32_t *len)
{
    const uint8_t *b = NULL;
    int err = logrep_struct_bytes(s, lr_fid(s, id), &b, len);
    *p = (const char *)b;
    return err;
}

int lr_f_set_str(logrep_struct *s, lr_fname id, const char *p, int32_t len)
{
    return logrep_struct_set_bytes_copy(s, lr_fid(s, id), p, len);
}

int32_t lr_f_count(const logrep_struct *s, lr_fname id)
{
    return logrep_struct_count(s, lr_fid(s, id));
}

logrep_struct *lr_f_elem(const logrep_struct *s, lr_fname id, int32_t i)
{
    return logrep_struct_elem(s, lr_fid(s, id), i);
}

int lr_f_set_count(logrep_struct *s, lr_fname id, int32_t count)
{
    return logrep_struct_set_count(s, lr_fid(s, id), count);
}

void *lr_msg_scratch(logrep_msg *m, size_t n)
{
    return m ? lr_arena_alloc(&m->arena, n ? n : 1) : NULL;
}

const char *lr_fname_str(lr_fname id)
{
    static const char *const names[] = {
#define LR_FN_STR(n) #n,
        LR_FIELD_NAMES(LR_FN_STR)
#undef LR_FN_STR
    };
    return (unsigned)id < LR_FN__COUNT ? names[id] : NULL;
}
