/* symbolize/unwind.c: remote unwinding of sampled user stacks (see unwind.h)
 * with libunwind: accessors over the sample's registers and stack bytes, and
 * find_proc_info over each mapped file's .eh_frame_hdr binary search table.
 */
#include "config.h"
#include "symbolize/unwind.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <libunwind.h>
#include <linux/perf_event.h>

#include "symbolize/internal.h"

#if defined(__x86_64__)
#include <asm/perf_regs.h>
#endif

/* Exported by libunwind-generic but not declared by its headers (perf does
 * the same). */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					       unw_dyn_info_t *di, unw_proc_info_t *pi,
					       int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

#define MAX_SEEN 16

struct fr_unwind {
	struct fr_symbolizer *sym;
	unw_addr_space_t as;
};

struct seen {                 /* a file whose tables this unwind has read */
	const struct fr_dso_image *img;
	uint64_t bias;
};

struct ctx {
	struct fr_unwind *u;
	const struct fr_addrspace *as;
	uint32_t pid;
	uint64_t time;
	const struct fr_ustack *st;
	uint64_t sp;
	struct seen seen[MAX_SEEN];
	int nseen;
};

#if defined(__x86_64__)
/* libunwind's x86_64 register numbers to perf's (asm/perf_regs.h). */
static int perf_reg(unw_regnum_t r)
{
	static const int map[] = {
		[UNW_X86_64_RAX] = PERF_REG_X86_AX, [UNW_X86_64_RDX] = PERF_REG_X86_DX,
		[UNW_X86_64_RCX] = PERF_REG_X86_CX, [UNW_X86_64_RBX] = PERF_REG_X86_BX,
		[UNW_X86_64_RSI] = PERF_REG_X86_SI, [UNW_X86_64_RDI] = PERF_REG_X86_DI,
		[UNW_X86_64_RBP] = PERF_REG_X86_BP, [UNW_X86_64_RSP] = PERF_REG_X86_SP,
		[UNW_X86_64_R8] = PERF_REG_X86_R8, [UNW_X86_64_R9] = PERF_REG_X86_R9,
		[UNW_X86_64_R10] = PERF_REG_X86_R10, [UNW_X86_64_R11] = PERF_REG_X86_R11,
		[UNW_X86_64_R12] = PERF_REG_X86_R12, [UNW_X86_64_R13] = PERF_REG_X86_R13,
		[UNW_X86_64_R14] = PERF_REG_X86_R14, [UNW_X86_64_R15] = PERF_REG_X86_R15,
		[UNW_X86_64_RIP] = PERF_REG_X86_IP,
	};

	return r >= 0 && (size_t)r < sizeof(map) / sizeof(map[0]) ? map[r] : -1;
}
#define REG_IP PERF_REG_X86_IP
#define REG_SP PERF_REG_X86_SP
#define REGS_ABI PERF_SAMPLE_REGS_ABI_64
#else
static int perf_reg(unw_regnum_t r)
{
	(void)r;
	return -1;
}
#define REG_IP 0
#define REG_SP 0
#define REGS_ABI (~0ull)
#endif

static int reg_value(const struct fr_ustack *st, int preg, uint64_t *v)
{
	uint64_t bit;

	if (preg < 0 || preg > 63)
		return -EINVAL;
	bit = 1ull << preg;
	if (!(st->mask & bit))
		return -ENOENT;
	*v = st->regs[__builtin_popcountll(st->mask & (bit - 1))];
	return 0;
}

static void remember(struct ctx *c, const struct fr_dso_image *img, uint64_t bias)
{
	for (int i = 0; i < c->nseen; i++)
		if (c->seen[i].img == img && c->seen[i].bias == bias)
			return;
	if (c->nseen < MAX_SEEN)
		c->seen[c->nseen++] = (struct seen){ img, bias };
}

/* The image and bias of the mapping holding addr. */
static const struct fr_dso_image *image_at(struct ctx *c, uint64_t addr, const struct fr_map **mp,
					   uint64_t *bias)
{
	const struct fr_dso_image *img;

	*mp = fr_addrspace__find(c->as, c->pid, c->time, addr);
	if (!*mp)
		return NULL;
	img = fr_symbolizer__image(c->u->sym, c->as, (*mp)->dso);
	if (img) {
		*bias = fr_dso_image__bias(img, *mp);
		remember(c, img, *bias);
	}
	return img;
}

/* Encoded pointer sizes in .eh_frame_hdr (DW_EH_PE_*); the value itself is
 * needed only for fde_count, which is absolute. */
static int enc_read(const uint8_t *p, const uint8_t *end, uint8_t enc, uint64_t *v, size_t *len)
{
	uint8_t fmt = enc & 0x0f;

	*v = 0;
	if (enc == 0xff) {         /* DW_EH_PE_omit */
		*len = 0;
		return 0;
	}
	*len = fmt == 0x00 || fmt == 0x04 || fmt == 0x0c ? 8 : fmt == 0x03 || fmt == 0x0b ? 4
							: fmt == 0x02 || fmt == 0x0a ? 2 : 0;
	if (!*len || (size_t)(end - p) < *len)
		return -EINVAL;
	memcpy(v, p, *len);
	return 0;
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct ctx *c = arg;
	const struct fr_map *mp;
	uint64_t bias = 0, ptr, count;
	const struct fr_dso_image *img = image_at(c, ip, &mp, &bias);
	uint8_t hdr[4 + 8 + 8];
	size_t l1, l2;
	unw_dyn_info_t di;

	if (!img || !img->eh_frame_hdr ||
	    fr_dso_image__read(img, img->eh_frame_hdr, hdr, 4) || hdr[0] != 1)
		return -UNW_ENOINFO;
	/* the rest of the header may be shorter than 16 bytes at the end of a segment */
	if (fr_dso_image__read(img, img->eh_frame_hdr, hdr, sizeof(hdr)) &&
	    fr_dso_image__read(img, img->eh_frame_hdr, hdr, 12))
		return -UNW_ENOINFO;
	if (enc_read(hdr + 4, hdr + sizeof(hdr), hdr[1], &ptr, &l1) ||
	    enc_read(hdr + 4 + l1, hdr + sizeof(hdr), hdr[2], &count, &l2) ||
	    hdr[3] != 0x3b /* DW_EH_PE_datarel | DW_EH_PE_sdata4: the searchable table */)
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = mp->start;
	di.end_ip = mp->end;
	di.u.rti.segbase = bias + img->eh_frame_hdr;
	di.u.rti.table_data = di.u.rti.segbase + 4 + l1 + l2;
	di.u.rti.table_len = count * 8 / sizeof(unw_word_t);
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
	return -UNW_ENOINFO;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write,
		      void *arg)
{
	struct ctx *c = arg;
	const struct fr_dso_image *img;
	const struct fr_map *mp;
	uint64_t bias = 0;

	*valp = 0;
	if (write)
		return -UNW_EINVAL;
	if (addr >= c->sp && addr - c->sp < c->st->size && c->st->size - (addr - c->sp) >= 8) {
		memcpy(valp, (const uint8_t *)c->st->stack + (addr - c->sp), sizeof(*valp));
		return 0;
	}
	img = image_at(c, addr, &mp, &bias);
	if (img && !fr_dso_image__read(img, addr - bias, valp, sizeof(*valp)))
		return 0;
	/* tables in a file's non-executable segments, which MMAP2 did not record */
	for (int i = 0; i < c->nseen; i++)
		if (!fr_dso_image__read(c->seen[i].img, addr - c->seen[i].bias, valp, sizeof(*valp)))
			return 0;
	return -UNW_EINVAL;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp, int write,
		      void *arg)
{
	struct ctx *c = arg;
	uint64_t v;

	if (write)
		return -UNW_EINVAL;
	if (reg_value(c->st, perf_reg(regnum), &v))
		return -UNW_EBADREG;
	*valp = v;
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val, int write,
			void *arg)
{
	return -UNW_EINVAL;
}

static int resume(unw_addr_space_t as, unw_cursor_t *cu, void *arg)
{
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			 unw_word_t *off, void *arg)
{
	return -UNW_EINVAL;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

int fr_unwind__new(struct fr_symbolizer *s, struct fr_unwind **out)
{
	struct fr_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->sym = s;
	*out = u;   /* libunwind's address space on the first stack: most files have none */
	return 0;
}

static int make_addr_space(struct fr_unwind *u)
{
	if (u->as)
		return 0;
	u->as = unw_create_addr_space(&accessors, 0);
	if (!u->as)
		return -ENOMEM;
	/* no caching: one address space serves every process of the file */
	unw_set_caching_policy(u->as, UNW_CACHE_NONE);
	return 0;
}

void fr_unwind__delete(struct fr_unwind *u)
{
	if (!u)
		return;
	if (u->as)
		unw_destroy_addr_space(u->as);
	free(u);
}

int fr_unwind__user(struct fr_unwind *u, const struct fr_addrspace *as, uint32_t pid, uint64_t time,
		    const struct fr_ustack *st, uint64_t *ips, size_t max)
{
	struct ctx c = { .u = u, .as = as, .pid = pid, .time = time, .st = st };
	uint64_t ip, prev_sp = 0;
	unw_cursor_t cur;
	size_t n = 0;

	if (!st->abi || !st->regs || !max)
		return 0;
	if (st->abi != REGS_ABI)
		return -ENOTSUP;
	if (make_addr_space(u))
		return -ENOMEM;
	if (reg_value(st, REG_IP, &ip) || reg_value(st, REG_SP, &c.sp))
		return -EINVAL;
	ips[n++] = ip;
	if (unw_init_remote(&cur, u->as, &c))
		return (int)n;
	while (n < max && unw_step(&cur) > 0) {
		unw_word_t nip = 0, nsp = 0;

		unw_get_reg(&cur, UNW_REG_IP, &nip);
		unw_get_reg(&cur, UNW_REG_SP, &nsp);
		if (!nip || (nsp == prev_sp && nip == ips[n - 1]) || !fr_addrspace__find(as, pid, time, nip))
			break;
		prev_sp = nsp;
		ips[n++] = nip;
	}
	return (int)n;
}
