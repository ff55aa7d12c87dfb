/* `ferry decode FILE`: PM4 disassembly of a raw dword dump, a fault/hang report or an .rd capture
 * (gzip'd or not), the format found from the content unless --format says otherwise. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault_report.h"
#include "pm4_decode.h"
#include "rd_file.h"
#include "subcommands.h"

#define MAX_INPUT (1ull << 30)   /* refuse files (and inflated captures) larger than 1 GiB */

enum input_format { FORMAT_AUTO, FORMAT_RAW, FORMAT_REPORT, FORMAT_RD };

static void usage(FILE *f)
{
	fprintf(f, "usage: ferry decode [options] FILE\n"
		   "Disassemble Adreno PM4 from FILE ('-' for stdin):\n"
		   "  a raw dump of little-endian dwords, a fault/hang report (devcoredump text), or an .rd capture.\n\n"
		   "  --format raw|report|rd  do not detect the format from the content\n"
		   "  --base IOVA             GPU address of the first dword of a raw dump (default 0)\n"
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
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				fprintf(stderr, "ferry decode: %s: out of memory\n", path);
				break;
			}
			buf = nb;
			cap *= 2;
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
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	enum input_format format = FORMAT_AUTO;
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
			else {
				fprintf(stderr, "ferry decode: unknown format '%s' (raw, report or rd)\n", optarg);
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
		if (format == FORMAT_AUTO) {
			if (rd_is_gzip(data, len) || rd_detect(data, len))
				format = FORMAT_RD;
			else if (fault_report_detect((const char *)data, len))
				format = FORMAT_REPORT;
			else
				format = FORMAT_RAW;
		}
		switch (format) {
		case FORMAT_REPORT: ret = decode_report(path, data, len, follow); break;
		case FORMAT_RD: ret = decode_rd(path, data, len, follow, list_buffers); break;
		default: ret = decode_raw(path, data, len, base, follow); break;
		}
	}
	free(data);
	return ret;
}
