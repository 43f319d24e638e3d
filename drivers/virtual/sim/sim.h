/*
 * sim.h - one simulated board: an AR9xxx card, the access point it talks to,
 * mac80211's station state machine, and the host, in simulated time.
 *
 * The power-save decisions are not here: they live in the booted model
 * kernel (a shared object built from a model kernel tree, see
 * modelkernel/tree/drivers/net/wireless/ath/ath9k/hw-model.h), which the
 * board loads with dlopen() at boot. The simulator provides the hardware
 * that driver drives and runs the userspace tools a workload calls (iw,
 * ping, dmesg, sleep, uname, ip), printing what the real tools print.
 *
 * Time only moves while a tool runs: `sleep 600` simulates ten minutes of
 * beacons, power-save transitions and keepalives and returns at once.
 * Everything random comes from the board's seed, so a run is reproducible.
 *
 * Functions return 0 or a negative errno; sim_board_error() says why.
 */
#ifndef RB_SIM_H
#define RB_SIM_H

#include <stddef.h>
#include <stdint.h>

/* Model knobs of ath9k-model.md §5; every one may be overridden per board. */
struct sim_knobs {
	double p_wake_dead;		/* MAC dead after waking from full sleep w/o reset: 0.9 */
	double p_same_channel_scan;	/* AP on the hw's channel after a scan: 0.5 */
	double p_same_channel_reconnect;/* ... on a same-AP reconnect without scan: 1.0 */
	double p_txdma_stop_fail;	/* stuck frames make TX DMA stop fail at reset: 0.8 */
	double p_rx_busy;		/* RX DMA active when full sleep is entered: 0.05 */
	double p_wedge;			/* ... and it wedges: 0.3 */
	double p_bus_hang;		/* a wedged RX DMA hangs the host bus: 0.05 */
	double p_ctx_loss;		/* MAC context lost in full sleep on non-RTC-reset chips: 0.5 */
	double p_ack_loss;		/* per TX attempt: 0.05 */
	int retry_limit;		/* TX attempts per frame: 10 */
	double p_beacon_loss;		/* per beacon: 0.01 */
	double idle_gap_min_ms;		/* idle between scan end and auth: 5 */
	double idle_gap_max_ms;		/* 100 */
	int dtim_period;		/* 1..3: 1 */
	int aspm_l1;			/* PCIe ASPM L1 enabled (power figures): 1 */
	/* Not the card's nor the kernel's: an interferer near the board, for a
	 * lab whose failures also show on good kernels now and then. Spells
	 * begin at random (a Poisson process in simulated time, its own seeded
	 * generator) and last interference_ms; meanwhile the AP's data frames
	 * (its echo replies) do not reach the card, so pings are really lost.
	 * Beacons and management frames, sent at the lowest rate, get through,
	 * and so do the card's own frames. */
	double p_interference;		/* a spell begins in a given minute: 0 (never) */
	double interference_ms;		/* each spell's length: 30000 */
};

void sim_knobs_default(struct sim_knobs *knobs);
/* Sets one knob by its field name ("p_wake_dead"); -EINVAL unknown name or
 * unparsable value, -ERANGE out of range (probabilities in [0,1]). */
int sim_knob_set(struct sim_knobs *knobs, const char *name, const char *value);
/* NULL-terminated list of the knob names, for help and error messages. */
const char *const *sim_knob_names(void);

enum sim_chip {
	SIM_CHIP_AR5416 = 0,
	SIM_CHIP_AR9160,
	SIM_CHIP_AR9280,
	SIM_CHIP_AR9285,
	SIM_CHIP_AR9287,
	SIM_CHIP_AR9380,
	SIM_CHIP_AR9462,
	SIM_CHIP_COUNT
};

struct sim_chip_info {
	const char *name;		/* "ar9285", as labs and --chip spell it */
	const char *marketing_name;	/* "AR9285" */
	unsigned int pci_vendor;	/* 0x168c */
	unsigned int pci_device;	/* 0x002b */
	int autosleep;			/* wakes itself for beacons in NETWORK_SLEEP */
	int rtc_reset_in_full_sleep;	/* full sleep loses the MAC state always */
};

/* 0, or -EINVAL for a name that is not a known chip. */
int sim_chip_from_name(const char *name, enum sim_chip *chip);
const struct sim_chip_info *sim_chip_info(enum sim_chip chip);

struct sim_board_config {
	const char *name;		/* board name, for messages */
	enum sim_chip chip;
	struct sim_knobs knobs;
	uint64_t seed;
	const char *ap_ssid;		/* "rackbisect-ap" when NULL */
	const char *ap_bssid;		/* "00:0b:6b:de:ad:01" when NULL */
	int ap_freq;			/* MHz; 2437 when 0 */
	const char *ap_ip;		/* the AP's address that ping targets; "127.80.2.1" when NULL */
};

struct sim_board;

struct sim_board *sim_board_create(const struct sim_board_config *config);
void sim_board_destroy(struct sim_board *board);
const char *sim_board_error(const struct sim_board *board);

/*
 * Boots a built model kernel: dlopen()s kernel_path, checks the ABI, probes
 * the driver, restarts simulated uptime at 0 with a fresh kernel log (boot
 * banner first), brings wlan0 up and associates with the AP. The board then
 * runs this build until the next boot or power off. -ENOEXEC for a file that
 * is not a model kernel build.
 */
int sim_board_boot(struct sim_board *board, const char *kernel_path);
/* Unloads the kernel; a board that is off runs no tool. */
void sim_board_power_off(struct sim_board *board);
int sim_board_is_on(const struct sim_board *board);
/* `uname -r` of the booted build; "" when off. */
const char *sim_board_release(const struct sim_board *board);
/* linux_banner of the booted build (/proc/version); "" when off. */
const char *sim_board_banner(const struct sim_board *board);
/* Simulated time since boot, µs. */
uint64_t sim_board_uptime_us(const struct sim_board *board);

typedef void (*sim_output_fn)(void *arg, int fd, const char *data, size_t len);

/* The result of a tool that froze the host while it ran. */
#define SIM_TOOL_HUNG (-1000)

/*
 * Runs one userspace tool as the board's shell would (argv[0] is its name:
 * iw, ping, dmesg, sleep, uname, ip), writing its stdout (fd 1) and stderr
 * (fd 2) through `out` as it goes and advancing simulated time as long as
 * the tool takes. Returns its exit status (0..255), 127 for an unknown tool,
 * or SIM_TOOL_HUNG if the host hung meanwhile: then the output stops where
 * the hang happened and every later call returns SIM_TOOL_HUNG at once until
 * the board is booted again.
 */
int sim_board_run_tool(struct sim_board *board, int argc, char **argv,
		       sim_output_fn out, void *arg);

int sim_board_is_hung(const struct sim_board *board);
/* Fault injection: the host hangs now (the console prints nothing more). */
void sim_board_inject_hang(struct sim_board *board);

/*
 * The kernel log, as the console and dmesg show it: "[%5lu.%06lu] text".
 * Lines are numbered from 0 since boot; `sim_board_log_line` returns NULL for
 * a number not (or no longer) held. The log keeps at least the last 10000.
 */
uint64_t sim_board_log_next(const struct sim_board *board);
const char *sim_board_log_line(const struct sim_board *board, uint64_t number);

/* Where the board's pseudo files go (each may be NULL to skip it). */
struct sim_board_files {
	/* becomes /sys/kernel/debug: ieee80211/phy0/ath9k/{wiphy,xmit,recv,interrupt} */
	const char *debugfs_dir;
	/* becomes /sys/class: hwmon/hwmon0/{name,power1_input,energy1_input},
	 * net/wlan0/{address,operstate}, ieee80211/phy0/ */
	const char *sysclass_dir;
	/* becomes /proc/uptime: rewritten in place (it is a bind-mount target) */
	const char *uptime_file;
};

/* Writes the pseudo files as of now; called after each tool. */
int sim_board_write_files(struct sim_board *board, const struct sim_board_files *files);

/* Counters a test may read without parsing tool output. */
struct sim_board_stats {
	uint64_t energy_uj;		/* since boot */
	uint64_t tx_packets, tx_retries, tx_failed;
	uint64_t full_sleep_entries, wake_dead, auth_timeouts;
	uint64_t txdma_stop_failures, rxdma_stop_failures;
	uint64_t resets, events;	/* events: simulation events processed */
	uint64_t interference_spells;	/* spells begun (p_interference) */
};
void sim_board_stats(const struct sim_board *board, struct sim_board_stats *stats);

#endif
