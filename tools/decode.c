/* `ferry decode FILE`: PM4 disassembly of a raw dword dump, a fault/hang report or an .rd capture
 * (gzip'd or not), the format found from the content unless --format says otherwise; with
 * --family v3d, a raw V3D control list in CLIF-like form. A simulated-V3D fault report is
 * recognised by its "module: v3d" line whatever the family. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry/array.h"
#include "decode_session.h"
#include "fault_report.h"
#include "pm4_decode.h"
#include "rd_file.h"
#include "subcommands.h"
#include "ferry/session_file.h"
#include "v3d_decode.h"

#define MAX_INPUT (1ull << 30)   /* refuse files (and inflated captures) larger than 1 GiB */

enum input_format { FORMAT_AUTO, FORMAT_RAW, FORMAT_REPORT, FORMAT_RD, FORMAT_SESSION };
enum gpu_family { FAMILY_PM4, FAMILY_V3D };

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry decode [options] FILE\n"
		   "Disassemble Adreno PM4 from FILE ('-' for stdin):\n"
		   "  a raw dump of little-endian dwords, a fault/hang report (devcoredump text), an .rd capture, or a\n"
		   "  .ferrycap session capture (records listed, submits decoded: PM4 or CLIF-like V3D).\n"
		   "With --family v3d: a raw Broadcom V3D control list, printed CLIF-like (buffers named by their\n"
		   "GPU offsets, packets with their fields, branches and sub-lists inside the dump followed).\n\n"
		   "  --format raw|report|rd|session  do not detect the format from the content\n"
		   "  --family pm4|v3d        what a raw dump holds (default pm4)\n"
		   "  --v3d-ver 42|71         V3D version of a raw list (implies --family v3d; default: detected)\n"
		   "  --base IOVA             GPU address of the first byte of a raw dump (default 0)\n"
		   "  --no-follow             do not decode IB targets / draw-state groups\n"
		   "  --list-buffers          .rd: list each buffer with contents\n"
		   "  -h, --help              this text\n");
}

/* Whole file into memory; NULL with a message on stderr. */
static uint8_t *read_input(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "ferry decode: %s: cannot open: %s\n", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, used = 0;
	uint8_t *buf = malloc(cap);
	while (buf) {
		if (used == cap) {
			if (cap >= MAX_INPUT) {
				fprintf(stderr, "ferry decode: %s: larger than %llu bytes, refusing\n", path, MAX_INPUT);
				free(buf);
				buf = NULL;
				break;
			}
			if (FERRY_ARRAY_RESERVE(buf, cap, cap + 1, 1 << 16)) {
				free(buf);
				buf = NULL;
				fprintf(stderr, "ferry decode: %s: out of memory\n", path);
				break;
			}
		}
		size_t n = fread(buf + used, 1, cap - used, f);
		used += n;
		if (n == 0) {
			if (ferror(f)) {
				fprintf(stderr, "ferry decode: %s: read error: %s\n", path, strerror(errno));
				free(buf);
				buf = NULL;
			}
			break;
		}
	}
	if (f != stdin)
		fclose(f);
	*len = used;
	return buf;
}

static int decode_raw(const char *path, const uint8_t *data, size_t len, uint64_t base, bool follow)
{
	if (len % 4) {
		fprintf(stderr, "ferry decode: %s: %zu bytes is not a whole number of dwords (raw PM4 dump)\n", path,
			len);
		return 1;
	}
	size_t n = len / 4;
	uint32_t *w = malloc(n ? n * 4 : 4);
	if (!w) {
		fprintf(stderr, "ferry decode: %s: out of memory\n", path);
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		w[i] = (uint32_t)data[4 * i] | (uint32_t)data[4 * i + 1] << 8 | (uint32_t)data[4 * i + 2] << 16 |
		       (uint32_t)data[4 * i + 3] << 24;
	/* The dump itself is the only memory known: IBs that point back into it can be followed. */
	struct pm4_decode_bo self = { .iova = base, .size = len, .id = 0, .name = "dump", .contents = data,
				      .contents_len = len };
	struct pm4_decode_options o = { .bos = &self, .nr_bos = 1, .follow_ibs = follow };
	struct pm4_decode_stats st;
	printf("raw PM4 dump %s: %zu dwords at 0x%llx\n", path, n, (unsigned long long)base);
	int ret = pm4_decode(stdout, w, n, base, &o, &st);
	printf("\n%llu packets, %llu bad dwords skipped, %llu truncated packets, %llu IBs followed%s\n",
	       (unsigned long long)st.packets, (unsigned long long)st.bad_dwords, (unsigned long long)st.truncated,
	       (unsigned long long)st.ibs_followed, st.budget_exhausted ? " (output budget exhausted)" : "");
	free(w);
	return ret ? 1 : 0;
}

/* A raw V3D list: the dump is the one buffer known, named CL_0x<base> as v3dv's CLIF names CLs. */
static int decode_raw_v3d(const char *path, const uint8_t *data, size_t len, uint64_t base, int ver, bool follow)
{
	if (base > UINT32_MAX || len > (1ull << 32) - base) {
		fprintf(stderr, "ferry decode: %s: %zu bytes at 0x%llx do not fit V3D's 4 GiB address space\n", path,
			len, (unsigned long long)base);
		return 1;
	}
	const char *how = "given";
	if (!ver) {
		bool sure;
		ver = v3d_decode_guess_version(data, len, &sure);
		how = sure ? "detected" : "assumed: both versions read it alike, use --v3d-ver";
	}
	/* len <= MAX_INPUT (1 GiB), so it fits the buffer's 32-bit size */
	struct v3d_decode_buffer self = { .addr = (uint32_t)base, .size = (uint32_t)len, .name = "CL",
					  .contents = data, .contents_len = (uint32_t)len };
	struct v3d_decode_options o = { .ver = ver, .buffers = &self, .nr_buffers = 1, .follow = follow };
	struct v3d_decode_stats st;
	printf("raw V3D control list %s: %zu bytes at 0x%08llx, V3D %d.%d (%s)\n", path, len,
	       (unsigned long long)base, ver / 10, ver % 10, how);
	int ret = v3d_decode_cl(stdout, &o, (uint32_t)base, 0, &st);
	printf("\n%llu packets, %llu lists, %llu unknown opcodes, %llu truncated, %llu cycles, %llu targets not in "
	       "the dump, %llu shader records%s\n", (unsigned long long)st.packets, (unsigned long long)st.lists,
	       (unsigned long long)st.unknown, (unsigned long long)st.truncated, (unsigned long long)st.cycles,
	       (unsigned long long)st.unavailable, (unsigned long long)st.records,
	       st.budget_exhausted ? " (budget exhausted)" : "");
	return ret ? 1 : 0;
}

/* The simulated V3D's fault report (host/sim/v3d/sim_v3d_report.c) names the packet it stopped at
 * but carries no list contents: it is shown with the opcode named, and how to decode the list. */
static bool is_v3d_report(const uint8_t *data, size_t len)
{
	static const char key[] = "\nmodule: v3d\n";
	size_t n = len < 4096 ? len : 4096;
	return n >= 4 && !memcmp(data, "---\n", 4) && memmem(data, n, key, sizeof(key) - 1);
}

static int decode_v3d_report(const uint8_t *data, size_t len)
{
	int ver = 0;
	unsigned long cl_start = 0;
	bool have_cl = false;
	size_t pos = 0;
	while (pos < len) {
		const uint8_t *nl = memchr(data + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - data) : len;
		char line[256];
		size_t n = end - pos < sizeof(line) - 1 ? end - pos : sizeof(line) - 1;
		memcpy(line, data + pos, n);
		line[n] = '\0';
		pos = end + 1;
		fputs(line, stdout);
		int v;
		unsigned op, lo, hi;
		if (sscanf(line, "model: v3d-%*d.%*d (ver %d)", &v) == 1 && (v == 42 || v == 71))
			ver = v;
		else if (sscanf(line, "  opcode: 0x%x", &op) == 1 && op < 256 && ver) {
			uint8_t b = (uint8_t)op;
			char name[96];
			v3d_decode_packet_name(name, sizeof(name), ver, &b, 1);
			printf("  /* %s */", name);
		} else if (sscanf(line, "  cl: 0x%x..0x%x", &lo, &hi) == 2) {
			cl_start = lo;
			have_cl = true;
		}
		fputc('\n', stdout);
	}
	printf("\n/* the report carries no control-list contents: dump the list's buffer and decode it with\n"
	       "   ferry decode --family v3d --v3d-ver %d --base 0x%lx FILE */\n", ver ? ver : 42,
	       have_cl ? cl_start : 0ul);
	return ferror(stdout) ? 1 : 0;
}

static int decode_report(const char *path, const uint8_t *data, size_t len, bool follow)
{
	struct fault_report r;
	char err[256];
	if (fault_report_parse((const char *)data, len, &r, err, sizeof(err))) {
		fprintf(stderr, "ferry decode: %s: malformed fault report: %s\n", path, err);
		return 1;
	}
	int ret = fault_report_print(stdout, &r, follow);
	fault_report_free(&r);
	return ret ? 1 : 0;
}

static int decode_rd(const char *path, const uint8_t *data, size_t len, bool follow, bool list_buffers)
{
	char err[256];
	uint8_t *inflated = NULL;
	if (rd_is_gzip(data, len)) {
		size_t n;
		if (rd_gunzip(data, len, MAX_INPUT, &inflated, &n, err, sizeof(err))) {
			fprintf(stderr, "ferry decode: %s: %s\n", path, err);
			return 1;
		}
		data = inflated;
		len = n;
	}
	if (!rd_detect(data, len)) {
		fprintf(stderr, "ferry decode: %s: not an .rd capture (no GPU_ID/CHIP_ID/CMD/GPUADDR section at the start)\n",
			path);
		free(inflated);
		return 1;
	}
	struct rd_decode_options o = { .follow_ibs = follow, .list_buffers = list_buffers };
	int ret = rd_decode(stdout, data, len, &o, err, sizeof(err));
	if (ret)
		fprintf(stderr, "ferry decode: %s: malformed .rd capture: %s\n", path, err);
	free(inflated);
	return ret ? 1 : 0;
}

int cmd_decode(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "format", required_argument, NULL, 'f' }, { "base", required_argument, NULL, 'b' },
		{ "no-follow", no_argument, NULL, 'n' },    { "list-buffers", no_argument, NULL, 'l' },
		{ "family", required_argument, NULL, 'F' }, { "v3d-ver", required_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	enum input_format format = FORMAT_AUTO;
	enum gpu_family family = FAMILY_PM4;
	int v3d_ver = 0;
	unsigned long long base = 0;
	bool follow = true, list_buffers = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "raw"))
				format = FORMAT_RAW;
			else if (!strcmp(optarg, "report"))
				format = FORMAT_REPORT;
			else if (!strcmp(optarg, "rd"))
				format = FORMAT_RD;
			else if (!strcmp(optarg, "session"))
				format = FORMAT_SESSION;
			else {
				fprintf(stderr, "ferry decode: unknown format '%s' (raw, report, rd or session)\n", optarg);
				return 2;
			}
			break;
		case 'b': {
			char *end;
			errno = 0;
			base = strtoull(optarg, &end, 0);
			if (errno || !*optarg || *end || optarg[0] == '-') {
				fprintf(stderr, "ferry decode: bad --base '%s'\n", optarg);
				return 2;
			}
			break;
		}
		case 'F':
			if (!strcmp(optarg, "pm4"))
				family = FAMILY_PM4;
			else if (!strcmp(optarg, "v3d"))
				family = FAMILY_V3D;
			else {
				fprintf(stderr, "ferry decode: unknown family '%s' (pm4 or v3d)\n", optarg);
				return 2;
			}
			break;
		case 'V':
			if (!strcmp(optarg, "42"))
				v3d_ver = 42;
			else if (!strcmp(optarg, "71"))
				v3d_ver = 71;
			else {
				fprintf(stderr, "ferry decode: unknown --v3d-ver '%s' (42 or 71)\n", optarg);
				return 2;
			}
			family = FAMILY_V3D;
			break;
		case 'n': follow = false; break;
		case 'l': list_buffers = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (family == FAMILY_V3D && format == FORMAT_RD) {
		fprintf(stderr, "ferry decode: .rd captures hold Adreno command streams, not V3D lists\n");
		return 2;
	}
	const char *path = argv[optind];
	size_t len;
	uint8_t *data = read_input(path, &len);
	if (!data)
		return 1;
	int ret;
	if (len == 0) {
		fprintf(stderr, "ferry decode: %s: empty file\n", path);
		ret = 1;
	} else {
		bool v3d_report = format != FORMAT_RAW && format != FORMAT_RD && format != FORMAT_SESSION &&
				  is_v3d_report(data, len);
		/* A session names its own family: detected before --family v3d makes a dump raw. */
		if (format == FORMAT_AUTO && session_detect(data, len))
			format = FORMAT_SESSION;
		if (v3d_report)
			format = FORMAT_REPORT;
		else if (format == FORMAT_AUTO && family == FAMILY_V3D)
			format = FORMAT_RAW;
		if (format == FORMAT_AUTO) {
			if (rd_is_gzip(data, len) || rd_detect(data, len))
				format = FORMAT_RD;
			else if (fault_report_detect((const char *)data, len))
				format = FORMAT_REPORT;
			else
				format = FORMAT_RAW;
		}
		switch (format) {
		case FORMAT_REPORT:
			ret = v3d_report ? decode_v3d_report(data, len) : decode_report(path, data, len, follow);
			break;
		case FORMAT_RD: ret = decode_rd(path, data, len, follow, list_buffers); break;
		case FORMAT_SESSION: ret = decode_session(path, data, len, follow); break;
		default:
			ret = family == FAMILY_V3D ? decode_raw_v3d(path, data, len, base, v3d_ver, follow)
						   : decode_raw(path, data, len, base, follow);
			break;
		}
	}
	free(data);
	return ret;
}
