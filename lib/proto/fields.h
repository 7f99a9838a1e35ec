/* Protocol fields named by constant for the library's own code: LR_FN_Name
 * (generated from the schema tables, build/gen/field_names.h), so that a
 * misspelt field name does not compile, where the public string lookup
 * (logrep_struct_field) would silently read 0. A name that exists but not
 * in the given struct still gives index -1, which the accessors treat as
 * an absent field (0, empty, or LOGREP_ERR__INVALID_ARG on a set). */
#ifndef LR_PROTO_FIELDS_H
#define LR_PROTO_FIELDS_H

#include <stdint.h>
#include <logrep/proto.h>
#include "field_names.h"

/* The name of a constant ("ErrorCode" for LR_FN_ErrorCode), NULL if none. */
const char *lr_fname_str(lr_fname id);

/* Index of field `id` in s's struct, or -1. */
int lr_fid(const logrep_struct *s, lr_fname id);

int64_t lr_f_int(const logrep_struct *s, lr_fname id);
int lr_f_set_int(logrep_struct *s, lr_fname id, int64_t v);
/* Borrowed bytes of a string field, valid as long as the message. */
int lr_f_str(const logrep_struct *s, lr_fname id, const char **p, int32_t *len);
/* Copies p into the message's arena. */
int lr_f_set_str(logrep_struct *s, lr_fname id, const char *p, int32_t len);
int32_t lr_f_count(const logrep_struct *s, lr_fname id);
logrep_struct *lr_f_elem(const logrep_struct *s, lr_fname id, int32_t i);
int lr_f_set_count(logrep_struct *s, lr_fname id, int32_t count);
/* n bytes, 8-aligned, that live as long as the message's content (until
 * its next decode, init or free): for what a caller derives from a
 * decoded message. NULL when out of memory. */
void *lr_msg_scratch(logrep_msg *m, size_t n);

#endif
