/* Kafka's Uuid text form: URL-safe base64 without padding (22 chars). */
#ifndef LR_BASE_UUID_H
#define LR_BASE_UUID_H

#include <stddef.h>
#include <stdint.h>

/* Writes the 22 characters and a NUL. */
void lr_uuid_to_str(const uint8_t id[16], char out[23]);

/* Parses exactly 22 characters; 0 on success, -1 for a bad character or
 * non-zero trailing bits. Does not reject the all-zero id (callers that
 * must, do). */
int lr_uuid_from_str(const char *s, size_t len, uint8_t id[16]);

#endif
