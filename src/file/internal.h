/* src/file/internal.h: on-disk layouts and limits shared by src/file/write.c and
 * src/file/read.c (doc/format.md is the specification; keep the two in step).
 */
#ifndef FR_FILE_INTERNAL_H
#define FR_FILE_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "src/file/file.h"
#include "src/util.h"

/* Records are stored in the kernel's native layout and the headers are
 * written with memcpy: the format is little-endian, so is the host. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "flightrec files are little-endian");

#define FR_HEADER_SIZE 32u
#define FR_CHUNK_HDR_SIZE 32u

struct fr_disk_header {
	char magic[8];          /* FR_FILE_MAGIC, no NUL */
	uint32_t version;       /* FR_FILE_VERSION */
	uint32_t header_size;   /* FR_HEADER_SIZE */
	uint64_t flags;         /* 0 */
	uint64_t reserved;      /* 0 */
};
_Static_assert(sizeof(struct fr_disk_header) == FR_HEADER_SIZE, "file header is 32 bytes");

struct fr_disk_chunk {
	uint32_t magic;         /* FR_CHUNK_MAGIC */
	uint16_t type;          /* enum fr_chunk_type */
	uint16_t flags;         /* 0 in version 1; RECORDS in version 2: FR_CHUNK_F_CODED */
	uint32_t stream;        /* RECORDS: cpu, else 0 */
	uint32_t kind;          /* RECORDS: enum fr_stream_kind, else 0 */
	uint64_t comp_size;     /* bytes of the zstd frame that follows */
	uint64_t raw_size;      /* bytes of the decompressed payload */
};
_Static_assert(sizeof(struct fr_disk_chunk) == FR_CHUNK_HDR_SIZE, "chunk header is 32 bytes");

/* Chunk flags (version 2): a RECORDS chunk whose records are coded
 * (src/file/delta.h; doc/format.md §4 "Record coding"). */
#define FR_CHUNK_F_CODED 0x0001u

/* Payload layouts (all little-endian, packed, no alignment assumed). */
#define FR_RECORDS_HDR_SIZE 16u   /* u32 cpu, u32 kind, u64 nr_records */
#define FR_CPUSTAT_HDR_SIZE 8u    /* u32 count, u32 reserved */
#define FR_CPUSTAT_ENTRY_SIZE 64u /* u32 cpu, u32 flags, 7 x u64 */
#define FR_END_SIZE 8u            /* u64 chunks before END */

/* raw_size limits: a RECORDS payload is its header plus at most
 * FR_CHUNK_RAW_MAX bytes of records; any other payload is at most
 * FR_CHUNK_RAW_MAX. ZSTD_compressBound() of either is below FR_CHUNK_COMP_MAX. */
#define FR_RECORDS_PAYLOAD_MAX (FR_CHUNK_RAW_MAX + FR_RECORDS_HDR_SIZE)
#define FR_OTHER_PAYLOAD_MAX FR_CHUNK_RAW_MAX

/* zstd frame header (RFC 8878 3.1.1): magic, then Frame_Header_Descriptor
 * whose bit 2 is Content_Checksum_flag. */
#define FR_ZSTD_FRAME_MAGIC 0xFD2FB528u
#define FR_ZSTD_FHD_CHECKSUM 0x04u
/* Unused bit (0x10), reserved bit (0x08), Dictionary_ID_flag (0x03): zstd
 * ignores the unused bit; our writer sets none of them, so readers reject
 * them (a flip there would otherwise pass unnoticed). */
#define FR_ZSTD_FHD_MUST_BE_0 0x1bu

static inline uint64_t fr_payload_max(uint16_t type)
{
	return type == FR_CHUNK_RECORDS ? FR_RECORDS_PAYLOAD_MAX : FR_OTHER_PAYLOAD_MAX;
}

#endif
