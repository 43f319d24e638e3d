/*
 * pseudo_files.c - sim_board_write_files(): the debugfs, sysfs and procfs
 * files a workload reads on a board, written as of now in the formats of a
 * 3.3 kernel (ath9k debugfs) and of sysfs/procfs.
 */
#include "virtual/sim/sim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "virtual/sim/board.h"

#define POWER_WINDOW_US 1000000

struct text_buffer {
	char *data;
	size_t len, capacity;
	int failed;
};

static void append(struct text_buffer *buffer, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static void append(struct text_buffer *buffer, const char *format, ...)
{
	va_list args;
	int n;

	if (buffer->failed)
		return;
	for (;;) {
		size_t room = buffer->capacity - buffer->len;

		va_start(args, format);
		n = vsnprintf(buffer->data ? buffer->data + buffer->len : NULL, room, format, args);
		va_end(args);
		if (n < 0) {
			buffer->failed = 1;
			return;
		}
		if ((size_t)n < room) {
			buffer->len += (size_t)n;
			return;
		}
		buffer->capacity = (buffer->capacity + (size_t)n + 1) * 2;
		buffer->data = realloc(buffer->data, buffer->capacity);
		if (!buffer->data) {
			buffer->failed = 1;
			return;
		}
	}
}

/* ---- writing ----------------------------------------------------------------- */

static int make_directories(const char *path)
{
	char copy[4096];
	char *p;

	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy))
		return -ENAMETOOLONG;
	for (p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(copy, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t n = write(fd, data, len);

		if (n < 0)
			return -errno;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

static uint64_t text_hash(const char *data, size_t len)
{
	uint64_t hash = 14695981039346656037ULL; /* FNV-1a */

	while (len--)
		hash = (hash ^ (unsigned char)*data++) * 1099511628211ULL;
	return hash;
}

/* The slot remembering what was last written at `path` (a new one if there
 * is room; NULL when all are taken: the file is then always written). */
static struct sim_written_file *written_slot(struct sim_board *board, const char *path)
{
	uint64_t path_hash = text_hash(path, strlen(path));
	size_t i;

	for (i = 0; i < board->written_count; i++) {
		if (board->written[i].path_hash == path_hash)
			return &board->written[i];
	}
	if (board->written_count == SIM_WRITTEN_FILES)
		return NULL;
	board->written[board->written_count].path_hash = path_hash;
	board->written[board->written_count].text_hash = 0;
	return &board->written[board->written_count++];
}

static int write_new_file(const char *dir, const char *path, const char *temp,
			  const struct text_buffer *text)
{
	int fd, r;

	fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT) {	/* the first write: no directory yet */
		if ((r = make_directories(dir)) != 0)
			return r;
		fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		return -errno;
	r = write_all(fd, text->data ? text->data : "", text->len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(temp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(temp);
	return r;
}

/* Readers never see half a file: write beside it, then rename over it. A
 * file still there with the same text is left as it is. */
static int replace_file(struct sim_board *board, const char *dir, const char *name,
			const struct text_buffer *text)
{
	char path[4096], temp[4200];
	struct sim_written_file *slot;
	uint64_t hash;
	struct stat st;
	int r;

	if (text->failed)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	hash = text_hash(text->data ? text->data : "", text->len);
	slot = written_slot(board, path);
	if (slot && slot->text_hash == hash && stat(path, &st) == 0)
		return 0;
	snprintf(temp, sizeof(temp), "%s.tmp", path);
	r = write_new_file(dir, path, temp, text);
	if (slot)
		slot->text_hash = r == 0 ? hash : 0;
	return r;
}

static int write_text(struct sim_board *board, const char *dir, const char *name,
		      const char *format, ...) __attribute__((format(printf, 4, 5)));

static int write_text(struct sim_board *board, const char *dir, const char *name,
		      const char *format, ...)
{
	struct text_buffer text = { 0 };
	char *formatted;
	va_list args;
	int r;

	va_start(args, format);
	r = vasprintf(&formatted, format, args);
	va_end(args);
	if (r < 0)
		return -ENOMEM;
	text.data = formatted;
	text.len = strlen(formatted);
	r = replace_file(board, dir, name, &text);
	free(formatted);
	return r;
}

/* ---- debugfs: ieee80211/phy0/ath9k ---------------------------------------------- */

static void format_wiphy(const struct sim_board *board, struct text_buffer *out)
{
	const struct ath_hw *card = &board->card;
	const unsigned char *mac = board->mac_address;
	int freq = card->freq ? card->freq : 2412;
	int channel = freq == 2484 ? 14 : (freq - 2407) / 5;
	int associated = station_is_associated(&board->station);

	append(out, "phy0 (chan=%d  center-freq: %d MHz  channel-type: 0 (NO_HT))\n", channel, freq);
	append(out, "addr: %02x:%02x:%02x:%02x:%02x:%02x\n", mac[0], mac[1], mac[2], mac[3],
	       mac[4], mac[5]);
	append(out, "addrmask: ff:ff:ff:ff:ff:ff\n");
	append(out, "rfilt: 0x%x UCAST BCAST%s\n", associated ? 0x207 : 0x107,
	       associated ? " MYBEACON" : " BEACON");
	append(out, "INTERRUPT-MASK: 0x%x RX TX RXEOL RXORN%s\n", associated ? 0x4000871 : 0x871,
	       associated ? " TIM_TIMER" : "");
	append(out, "VIF-COUNTS: AP: 0 STA: 1 MESH: 0 WDS: 0 ADHOC: 0 TOTAL: 1 BEACON-VIF: 0\n");
	append(out, "BB HANG: %8u\n", card->reset_stats[RESET_TYPE_BB_HANG]);
	append(out, "BB WATCHDOG: %8u\n", card->reset_stats[RESET_TYPE_BB_WATCHDOG]);
	append(out, "FATAL HW: %8u\n", card->reset_stats[RESET_TYPE_FATAL_INT]);
	append(out, "TX HW errors: %8u\n", card->reset_stats[RESET_TYPE_TX_ERROR]);
	append(out, "TX Path Hang: %8u\n", card->reset_stats[RESET_TYPE_TX_HANG]);
	append(out, "PLL RX Hang: %8u\n", card->reset_stats[RESET_TYPE_PLL_HANG]);
}

/* Columns are ACs; our queues are numbered VO=0 VI=1 BE=2 BK=3. */
static void xmit_row(struct text_buffer *out, const struct ath_hw *card, const char *label,
		     size_t offset)
{
	static const int column_queue[4] = { CARD_QUEUE_BE, CARD_QUEUE_BK, CARD_QUEUE_VI,
					     CARD_QUEUE_VO };
	uint64_t v[4];
	int i;

	for (i = 0; i < 4; i++)
		v[i] = offset == (size_t)-1 ? 0 :
		       *(const uint64_t *)((const char *)&card->queues[column_queue[i]] + offset);
	append(out, "%s%13llu%11llu%10llu%10llu\n", label, (unsigned long long)v[0],
	       (unsigned long long)v[1], (unsigned long long)v[2], (unsigned long long)v[3]);
}

#define QUEUE_FIELD(name) offsetof(struct card_tx_queue, name)
#define ZERO ((size_t)-1)

static void format_xmit(const struct sim_board *board, struct text_buffer *out)
{
	const struct ath_hw *card = &board->card;

	append(out, "%30s %10s%10s%10s\n\n", "BE", "BK", "VI", "VO");
	xmit_row(out, card, "MPDUs Queued:    ", QUEUE_FIELD(queued));
	xmit_row(out, card, "MPDUs Completed: ", QUEUE_FIELD(completed));
	xmit_row(out, card, "MPDUs XRetried:  ", QUEUE_FIELD(xretries));
	xmit_row(out, card, "Aggregates:      ", ZERO);
	xmit_row(out, card, "AMPDUs Queued HW:", ZERO);
	xmit_row(out, card, "AMPDUs Queued SW:", ZERO);
	xmit_row(out, card, "AMPDUs Completed:", ZERO);
	xmit_row(out, card, "AMPDUs Retried:  ", ZERO);
	xmit_row(out, card, "AMPDUs XRetried: ", ZERO);
	xmit_row(out, card, "FIFO Underrun:   ", ZERO);
	xmit_row(out, card, "TXOP Exceeded:   ", ZERO);
	xmit_row(out, card, "TXTIMER Expiry:  ", ZERO);
	xmit_row(out, card, "DESC CFG Error:  ", ZERO);
	xmit_row(out, card, "DATA Underrun:   ", ZERO);
	xmit_row(out, card, "DELIM Underrun:  ", ZERO);
	xmit_row(out, card, "TX-Pkts-All:     ", QUEUE_FIELD(queued));
	xmit_row(out, card, "TX-Bytes-All:    ", QUEUE_FIELD(bytes));
	xmit_row(out, card, "hw-put-tx-buf:   ", QUEUE_FIELD(queued));
	xmit_row(out, card, "hw-tx-start:     ", QUEUE_FIELD(attempts));
	xmit_row(out, card, "hw-tx-proc-desc: ", QUEUE_FIELD(completed));
}

static void format_recv(const struct sim_board *board, struct text_buffer *out)
{
	const struct card_counters *c = &board->card.counters;
	static const char *const zero_rows[] = {
		"CRC ERR", "DECRYPT CRC ERR", "PHY ERR", "MIC ERR", "PRE-DELIM CRC ERR",
		"POST-DELIM CRC ERR", "DECRYPT BUSY ERR", "RX-Length-Error", "RX-OOM-Error",
		"RX-Rate-Error",
	};
	size_t i;

	for (i = 0; i < sizeof(zero_rows) / sizeof(zero_rows[0]); i++)
		append(out, "%22s : %10u\n", zero_rows[i], 0u);
	append(out, "%22s : %10llu\n", "RX-Pkts-All", (unsigned long long)c->rx_packets);
	append(out, "%22s : %10llu\n", "RX-Bytes-All", (unsigned long long)c->rx_bytes);
	append(out, "%22s : %10llu\n", "RX-Beacons", (unsigned long long)c->rx_beacons);
	append(out, "%22s : %10u\n", "RX-Frags", 0u);
}

static void format_interrupt(const struct sim_board *board, struct text_buffer *out)
{
	const struct card_counters *c = &board->card.counters;
	const struct {
		const char *name;
		uint64_t value;
	} rows[] = {
		{ "RX", c->irq_rx }, { "RXEOL", 0 }, { "RXORN", 0 }, { "TX", c->irq_tx },
		{ "TXURN", 0 }, { "MIB", 0 }, { "RXPHY", 0 }, { "RXKCM", 0 }, { "SWBA", 0 },
		{ "BMISS", c->irq_bmiss }, { "BNR", 0 }, { "CST", 0 }, { "GTT", 0 },
		{ "TIM", c->irq_tim }, { "CABEND", c->irq_cabend }, { "DTIMSYNC", 0 },
		{ "DTIM", 0 }, { "TSFOOR", 0 }, { "TOTAL", c->irq_total },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		append(out, "%8s: %10llu\n", rows[i].name, (unsigned long long)rows[i].value);
}

static int write_formatted(const char *dir, const char *name, struct sim_board *board,
			   void (*format)(const struct sim_board *, struct text_buffer *))
{
	struct text_buffer text = { 0 };
	int r;

	format(board, &text);
	r = replace_file(board, dir, name, &text);
	free(text.data);
	return r;
}

static int write_debugfs(struct sim_board *board, const char *root)
{
	char dir[4096];
	int r;

	snprintf(dir, sizeof(dir), "%s/ieee80211/phy0/ath9k", root);
	r = write_formatted(dir, "wiphy", board, format_wiphy);
	if (r == 0)
		r = write_formatted(dir, "xmit", board, format_xmit);
	if (r == 0)
		r = write_formatted(dir, "recv", board, format_recv);
	if (r == 0)
		r = write_formatted(dir, "interrupt", board, format_interrupt);
	return r;
}

/* ---- sysfs: /sys/class --------------------------------------------------------------- */

static int write_hwmon(struct sim_board *board, const char *root)
{
	char dir[4096];
	uint64_t energy_uj = power_meter_energy_pj(&board->meter, board->now_us) / 1000000;
	uint64_t power_uw = power_meter_average_uw(&board->meter, board->now_us, POWER_WINDOW_US);
	int r;

	snprintf(dir, sizeof(dir), "%s/hwmon/hwmon0", root);
	r = write_text(board, dir, "name", "ath9k_power\n");
	if (r == 0)
		r = write_text(board, dir, "power1_input", "%llu\n", (unsigned long long)power_uw);
	if (r == 0)
		r = write_text(board, dir, "energy1_input", "%llu\n", (unsigned long long)energy_uj);
	return r;
}

static int write_net(struct sim_board *board, const char *root)
{
	char dir[4096];
	const unsigned char *mac = board->mac_address;
	int r;

	snprintf(dir, sizeof(dir), "%s/net/wlan0", root);
	r = write_text(board, dir, "address", "%02x:%02x:%02x:%02x:%02x:%02x\n", mac[0], mac[1],
			       mac[2], mac[3], mac[4], mac[5]);
	if (r == 0)
		r = write_text(board, dir, "operstate", "%s\n",
			       station_is_associated(&board->station) ? "up" :
			       board->station.state == STATION_DOWN ? "down" : "dormant");
	return r;
}

static int write_phy(struct sim_board *board, const char *root)
{
	char dir[4096];
	const unsigned char *mac = board->mac_address;
	int r;

	snprintf(dir, sizeof(dir), "%s/ieee80211/phy0", root);
	r = write_text(board, dir, "index", "0\n");
	if (r == 0)
		r = write_text(board, dir, "name", "phy0\n");
	if (r == 0)
		r = write_text(board, dir, "macaddress", "%02x:%02x:%02x:%02x:%02x:%02x\n", mac[0], mac[1],
			       mac[2], mac[3], mac[4], mac[5]);
	return r;
}

/* ---- procfs: /proc/uptime (a bind-mount target: rewritten in place) ------------------ */

static int write_uptime(const struct sim_board *board, const char *path)
{
	char text[64];
	double uptime = (double)board->now_us / 1e6;
	int fd, n, r;

	/* one CPU that was mostly idle */
	n = snprintf(text, sizeof(text), "%.2f %.2f\n", uptime, uptime * 0.97);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	r = write_all(fd, text, (size_t)n);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int sim_board_write_files(struct sim_board *board, const struct sim_board_files *files)
{
	int r = 0;

	if (!files)
		return -EINVAL;
	if (r == 0 && files->debugfs_dir)
		r = write_debugfs(board, files->debugfs_dir);
	if (r == 0 && files->sysclass_dir)
		r = write_hwmon(board, files->sysclass_dir);
	if (r == 0 && files->sysclass_dir)
		r = write_net(board, files->sysclass_dir);
	if (r == 0 && files->sysclass_dir)
		r = write_phy(board, files->sysclass_dir);
	if (r == 0 && files->uptime_file)
		r = write_uptime(board, files->uptime_file);
	if (r < 0)
		snprintf(board->error, sizeof(board->error), "writing the board's files: %s",
			 strerror(-r));
	return r;
}
