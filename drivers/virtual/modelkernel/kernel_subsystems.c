/* kernel_subsystems.c - the data behind kernel_subsystems.h. */
#include "kernel_subsystems.h"

#include <string.h>

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* Maintainers and roles: public facts of 2012 kernel development. */
static const struct kernel_person linus = { "Linus Torvalds", "torvalds@linux-foundation.org", "-0700" };
static const struct kernel_person greg = { "Greg Kroah-Hartman", "gregkh@linuxfoundation.org", "-0700" };
static const struct kernel_person akpm = { "Andrew Morton", "akpm@linux-foundation.org", "-0700" };
static const struct kernel_person sfr = { "Stephen Rothwell", "sfr@canb.auug.org.au", "+1100" };
static const struct kernel_person felix = { "Felix Fietkau", "nbd@openwrt.org", "+0200" };
static const struct kernel_person linville = { "John W. Linville", "linville@tuxdriver.com", "-0400" };
static const struct kernel_person davem = { "David S. Miller", "davem@davemloft.net", "-0400" };
static const struct kernel_person airlied = { "Dave Airlie", "airlied@redhat.com", "+0100" };
static const struct kernel_person tiwai = { "Takashi Iwai", "tiwai@suse.de", "+0200" };
static const struct kernel_person tytso = { "Theodore Ts'o", "tytso@mit.edu", "-0400" };
static const struct kernel_person mingo = { "Ingo Molnar", "mingo@elte.hu", "+0200" };
static const struct kernel_person jejb = { "James Bottomley", "JBottomley@Parallels.com", "+0400" };
static const struct kernel_person axboe = { "Jens Axboe", "axboe@kernel.dk", "+0200" };
static const struct kernel_person dtor = { "Dmitry Torokhov", "dmitry.torokhov@gmail.com", "-0700" };
static const struct kernel_person rmk = { "Russell King", "rmk+kernel@arm.linux.org.uk", "+0100" };
static const struct kernel_person benh = { "Benjamin Herrenschmidt", "benh@kernel.crashing.org", "+1000" };

static const struct kernel_person *const roles[KERNEL_ROLE_COUNT] = {
	[KERNEL_ROLE_LINUS] = &linus,
	[KERNEL_ROLE_STABLE] = &greg,
	[KERNEL_ROLE_AKPM] = &akpm,
	[KERNEL_ROLE_BUILD_REPORTER] = &sfr,
	[KERNEL_ROLE_ATH9K] = &felix,
	[KERNEL_ROLE_WIRELESS] = &linville,
};

const struct kernel_person *kernel_role_person(enum kernel_role role)
{
	return roles[role];
}

#define KORG "git://git.kernel.org/pub/scm/linux/kernel/git/"

enum {
	NET, WIRELESS, DRM, SOUND, USB, EXT4, TIP, SCSI, BLOCK, INPUT, ARM,
	STAGING, POWERPC, MM, CORE
};

static const struct kernel_subsystem subsystems[] = {
	[NET] = { "net", &davem, KORG "davem/net-next", NULL, "networking updates", 14 },
	[WIRELESS] = { "wireless", &linville, KORG "linville/wireless", "for-linus", "wireless updates", 8 },
	[DRM] = { "drm", &airlied, "git://people.freedesktop.org/~airlied/linux", "drm-next", "drm updates", 10 },
	[SOUND] = { "sound", &tiwai, KORG "tiwai/sound", "for-linus", "sound updates", 6 },
	[USB] = { "usb", &greg, KORG "gregkh/usb", "usb-next", "USB updates", 7 },
	[EXT4] = { "ext4", &tytso, KORG "tytso/ext4", "for-linus", "ext4 updates", 3 },
	[TIP] = { "tip", &mingo, KORG "tip/tip", "sched-core-for-linus", "scheduler and x86 changes", 8 },
	[SCSI] = { "scsi", &jejb, KORG "jejb/scsi", "for-linus", "SCSI updates", 5 },
	[BLOCK] = { "block", &axboe, "git://git.kernel.dk/linux-block", "for-linus", "block layer updates", 3 },
	[INPUT] = { "input", &dtor, KORG "dtor/input", "for-linus", "input updates", 3 },
	[ARM] = { "arm", &rmk, KORG "rmk/linux-arm", "for-linus", "ARM updates", 7 },
	[STAGING] = { "staging", &greg, KORG "gregkh/staging", "staging-next", "staging tree updates", 6 },
	[POWERPC] = { "powerpc", &benh, KORG "benh/powerpc", "next", "powerpc updates", 4 },
	[MM] = { "mm", &akpm, NULL, NULL, "memory management", 6 },
	[CORE] = { "core", &akpm, NULL, NULL, "core kernel", 6 },
};

static const struct kernel_area areas[] = {
	{ "include/net", "net", "sk", FILLER_HEADER, 40, NULL, NET },
	{ "net/ipv4/netfilter", "netfilter", "nf", FILLER_SOURCE, 30, NULL, NET },
	{ "net/ipv6/netfilter", "netfilter", "ip6t", FILLER_SOURCE, 20, NULL, NET },
	{ "drivers/net/ethernet/intel/e1000e", "e1000e", "e1000e", FILLER_SOURCE, 18, NULL, NET },
	{ "drivers/net/ethernet/broadcom/bnx2x", "bnx2x", "bnx2x", FILLER_SOURCE, 18, NULL, NET },
	{ "drivers/net/ethernet/realtek", "r8169", "rtl8169", FILLER_SOURCE, 8, NULL, NET },
	{ "Documentation/networking", "Documentation", "net", FILLER_DOCUMENT, 50, NULL, NET },
	{ "net", "net", "net", FILLER_KCONFIG, 1, "Kconfig", NET },
	{ "drivers/net/ethernet", "net", "net", FILLER_KCONFIG, 1, "Kconfig", NET },

	{ "net/mac80211", "mac80211", "ieee80211", FILLER_HEADER, 10, NULL, WIRELESS },
	{ "net/wireless", "cfg80211", "cfg80211", FILLER_HEADER, 8, NULL, WIRELESS },
	{ "drivers/net/wireless/iwlwifi", "iwlwifi", "iwl", FILLER_SOURCE, 28, NULL, WIRELESS },
	{ "drivers/net/wireless/rt2x00", "rt2x00", "rt2x00", FILLER_SOURCE, 24, NULL, WIRELESS },
	{ "drivers/net/wireless/b43", "b43", "b43", FILLER_SOURCE, 14, NULL, WIRELESS },
	{ "drivers/net/wireless/rtlwifi", "rtlwifi", "rtl", FILLER_SOURCE, 14, NULL, WIRELESS },
	{ "drivers/net/wireless/brcm80211/brcmsmac", "brcmsmac", "brcms", FILLER_SOURCE, 12, NULL, WIRELESS },
	{ "drivers/net/wireless", "wireless", "wireless", FILLER_KCONFIG, 1, "Kconfig", WIRELESS },
	{ "net/mac80211", "mac80211", "mac80211", FILLER_KCONFIG, 1, "Kconfig", WIRELESS },

	{ "drivers/gpu/drm/i915", "drm/i915", "i915", FILLER_SOURCE, 36, NULL, DRM },
	{ "drivers/gpu/drm/radeon", "drm/radeon", "radeon", FILLER_SOURCE, 36, NULL, DRM },
	{ "drivers/gpu/drm/nouveau", "drm/nouveau", "nouveau", FILLER_SOURCE, 30, NULL, DRM },
	{ "drivers/gpu/drm", "drm", "drm", FILLER_SOURCE, 20, NULL, DRM },
	{ "include/drm", "drm", "drm", FILLER_HEADER, 14, NULL, DRM },
	{ "drivers/gpu/drm", "drm", "drm", FILLER_KCONFIG, 1, "Kconfig", DRM },

	{ "sound/pci/hda", "ALSA: hda", "snd_hda", FILLER_SOURCE, 28, NULL, SOUND },
	{ "sound/soc/codecs", "ASoC", "snd_soc", FILLER_SOURCE, 36, NULL, SOUND },
	{ "sound/usb", "ALSA: usb-audio", "snd_usb", FILLER_SOURCE, 12, NULL, SOUND },
	{ "include/sound", "ALSA", "snd", FILLER_HEADER, 18, NULL, SOUND },
	{ "Documentation/sound/alsa", "ALSA", "snd", FILLER_DOCUMENT, 18, NULL, SOUND },

	{ "drivers/usb/core", "USB", "usb", FILLER_SOURCE, 14, NULL, USB },
	{ "drivers/usb/host", "xhci", "xhci", FILLER_SOURCE, 22, NULL, USB },
	{ "drivers/usb/serial", "USB: serial", "usb_serial", FILLER_SOURCE, 28, NULL, USB },
	{ "drivers/usb/gadget", "usb: gadget", "usb_gadget", FILLER_SOURCE, 28, NULL, USB },
	{ "include/linux/usb", "USB", "usb", FILLER_HEADER, 18, NULL, USB },
	{ "Documentation/usb", "USB", "usb", FILLER_DOCUMENT, 14, NULL, USB },
	{ "drivers/usb", "USB", "usb", FILLER_KCONFIG, 1, "Kconfig", USB },

	{ "fs/ext4", "ext4", "ext4", FILLER_HEADER, 6, NULL, EXT4 },
	{ "fs/jbd2", "jbd2", "jbd2", FILLER_HEADER, 3, NULL, EXT4 },
	{ "Documentation/filesystems", "Documentation", "fs", FILLER_DOCUMENT, 40, NULL, EXT4 },
	{ "fs/ext4", "ext4", "ext4", FILLER_KCONFIG, 1, "Kconfig", EXT4 },

	{ "kernel/sched", "sched", "sched", FILLER_HEADER, 4, NULL, TIP },
	{ "arch/x86/kernel", "x86", "x86", FILLER_SOURCE, 56, NULL, TIP },
	{ "arch/x86/mm", "x86/mm", "x86_mm", FILLER_SOURCE, 18, NULL, TIP },
	{ "arch/x86/include/asm", "x86", "x86", FILLER_HEADER, 56, NULL, TIP },
	{ "Documentation/x86", "x86", "x86", FILLER_DOCUMENT, 10, NULL, TIP },
	{ "Documentation/scheduler", "sched", "sched", FILLER_DOCUMENT, 8, NULL, TIP },
	{ "arch/x86", "x86", "x86", FILLER_KCONFIG, 1, "Kconfig", TIP },

	{ "drivers/scsi", "[SCSI]", "scsi", FILLER_SOURCE, 56, NULL, SCSI },
	{ "include/scsi", "[SCSI]", "scsi", FILLER_HEADER, 14, NULL, SCSI },
	{ "drivers/scsi", "[SCSI]", "scsi", FILLER_KCONFIG, 1, "Kconfig", SCSI },

	{ "block", "block", "blk", FILLER_SOURCE, 20, NULL, BLOCK },
	{ "Documentation/block", "block", "blk", FILLER_DOCUMENT, 8, NULL, BLOCK },

	{ "drivers/input/mouse", "Input", "input", FILLER_SOURCE, 14, NULL, INPUT },
	{ "drivers/input/touchscreen", "Input", "ts", FILLER_SOURCE, 24, NULL, INPUT },
	{ "Documentation/input", "Input", "input", FILLER_DOCUMENT, 8, NULL, INPUT },

	{ "arch/arm/mach-omap2", "ARM: OMAP2+", "omap", FILLER_SOURCE, 40, NULL, ARM },
	{ "arch/arm/mach-imx", "ARM: imx", "imx", FILLER_SOURCE, 24, NULL, ARM },
	{ "arch/arm/include/asm", "ARM", "arm", FILLER_HEADER, 28, NULL, ARM },
	{ "arch/arm", "ARM", "arm", FILLER_KCONFIG, 1, "Kconfig", ARM },

	{ "drivers/staging/comedi", "staging: comedi", "comedi", FILLER_SOURCE, 28, NULL, STAGING },
	{ "drivers/staging/rtl8712", "staging: rtl8712", "r8712", FILLER_SOURCE, 18, NULL, STAGING },

	{ "arch/powerpc/kernel", "powerpc", "ppc", FILLER_SOURCE, 38, NULL, POWERPC },
	{ "arch/powerpc/include/asm", "powerpc", "ppc", FILLER_HEADER, 24, NULL, POWERPC },

	{ "mm", "mm", "mm", FILLER_HEADER, 3, NULL, MM },
	{ "include/linux/mm", "mm", "mm", FILLER_HEADER, 24, NULL, MM },
	{ "Documentation/vm", "mm", "vm", FILLER_DOCUMENT, 22, NULL, MM },
	{ "mm", "mm", "mm", FILLER_KCONFIG, 1, "Kconfig", MM },

	{ "lib", "lib", "lib", FILLER_SOURCE, 44, NULL, CORE },
	{ "ipc", "ipc", "ipc", FILLER_SOURCE, 10, NULL, CORE },
	{ "include/linux", "kernel", "kernel", FILLER_HEADER, 60, NULL, CORE },
	{ "Documentation", "Documentation", "doc", FILLER_DOCUMENT, 36, NULL, CORE },
	{ "init", "init", "init", FILLER_KCONFIG, 1, "Kconfig", CORE },
};

static const struct kernel_compiled_file compiled_files[] = {
	{ "kernel/sched/core.c", "sched", "sched", "Core kernel scheduler code and related syscalls", TIP },
	{ "kernel/printk.c", "printk", "printk", "Console and kernel log buffer handling", CORE },
	{ "mm/page_alloc.c", "mm", "page_alloc", "Manages the free list, the system allocates free pages here", MM },
	{ "fs/ext4/super.c", "ext4", "ext4_super", "Superblock and mount option handling of ext4", EXT4 },
	{ "net/mac80211/mlme.c", "mac80211", "ieee80211_mlme", "BSS client mode implementation", WIRELESS },
	{ "net/core/dev.c", "net", "netdev", "Network device handling: queues, NAPI and notifiers", NET },
};

/* Invented names of plausible kernel contributors of the time. */
static const struct kernel_person authors[] = {
	{ "Jakub Wenzel", "jwenzel@suse.cz", "+0200" },
	{ "Marta Kowalczyk", "marta.kowalczyk@intel.com", "+0200" },
	{ "Hideaki Tanabe", "tanabe.hideaki@jp.fujitsu.com", "+0900" },
	{ "Rafael Brito", "rbrito@redhat.com", "-0300" },
	{ "Anton Lebedev", "anton.lebedev@gmail.com", "+0400" },
	{ "Sanjay Venkatraman", "sanjayv@ti.com", "+0530" },
	{ "Claire Dumont", "claire.dumont@linaro.org", "+0200" },
	{ "Oliver Hartmann", "ohartmann@suse.de", "+0200" },
	{ "Wei Zhang", "zhangwei@huawei.com", "+0800" },
	{ "Kevin Marsh", "kmarsh@redhat.com", "-0400" },
	{ "Priya Raghunathan", "priya.r@intel.com", "-0700" },
	{ "Tomasz Nowicki", "t.nowicki@samsung.com", "+0200" },
	{ "Emily Carver", "ecarver@google.com", "-0700" },
	{ "Matthias Brenner", "mbrenner@gmx.de", "+0200" },
	{ "Yoshinori Sato", "ysato@jp.panasonic.com", "+0900" },
	{ "Pavel Novak", "pnovak@redhat.com", "+0200" },
	{ "Lukas Fischer", "lukas.fischer@avm.de", "+0200" },
	{ "Sarah Whitfield", "swhitfield@nvidia.com", "-0700" },
	{ "Alexey Sorokin", "asorokin@parallels.com", "+0400" },
	{ "Bartosz Lis", "b.lis@samsung.com", "+0200" },
	{ "Chen Gang", "chen.gang@windriver.com", "+0800" },
	{ "Daniel Moreau", "dmoreau@free-electrons.com", "+0200" },
	{ "Eric Lindqvist", "eric.lindqvist@stericsson.com", "+0200" },
	{ "Fernando Ruiz", "fruiz@gmail.com", "+0200" },
	{ "Gautam Iyer", "giyer@qualcomm.com", "-0700" },
	{ "Hannes Vogel", "hvogel@suse.de", "+0200" },
	{ "Ivan Petrov", "ipetrov@openvz.org", "+0400" },
	{ "Jun Nakamura", "jnakamura@necst.nec.co.jp", "+0900" },
	{ "Karen Holt", "kholt@us.ibm.com", "-0500" },
	{ "Leonardo Bianchi", "leo.bianchi@gmail.com", "+0200" },
	{ "Mikko Rantanen", "mikko.rantanen@nokia.com", "+0300" },
	{ "Nicolas Garnier", "ngarnier@mandriva.com", "+0200" },
	{ "Oscar Lindgren", "oscar.lindgren@axis.com", "+0200" },
	{ "Piotr Zalewski", "pzalewski@gmail.com", "+0200" },
	{ "Ravi Shankar", "ravi.shankar@broadcom.com", "+0530" },
	{ "Stefan Keller", "skeller@linutronix.de", "+0200" },
	{ "Thomas Renard", "trenard@bootlin.com", "+0200" },
	{ "Uwe Hoffmann", "u.hoffmann@pengutronix.de", "+0200" },
	{ "Vincent Baudry", "vbaudry@parrot.com", "+0200" },
	{ "Xiao Ming", "xiaoming@cn.fujitsu.com", "+0800" },
	{ "Yuri Kostin", "ykostin@mvista.com", "+0400" },
	{ "Zoltan Horvath", "zhorvath@gmail.com", "+0200" },
};

static const char *const words[] = {
	"the", "driver", "device", "interface", "support", "kernel", "module",
	"parameter", "default", "value", "buffer", "queue", "interrupt",
	"register", "mode", "power", "state", "userspace", "option", "should",
	"must", "may", "when", "is", "are", "be", "not", "for", "with", "to",
	"of", "and", "a", "this", "that", "on", "in", "each", "every", "only",
	"memory", "page", "lock", "timer", "clock", "firmware", "controller",
	"channel", "packet", "frame", "descriptor", "ring", "table", "entry",
	"reset", "suspend", "resume", "probe", "hardware", "setting", "file",
	"system", "call", "error", "return", "count", "limit", "size", "bytes",
	"enabled", "disabled", "supported", "configured", "allocated", "freed",
	"after", "before", "until", "while", "if", "otherwise", "also", "note",
};

static const char *const symbol_words[] = {
	"init", "probe", "remove", "suspend", "resume", "irq_handler", "tx",
	"rx", "start_xmit", "open", "stop", "reset", "setup", "config",
	"get_stats", "set_rate", "alloc", "free", "update", "flush", "poll",
	"work", "timeout", "attach", "detach", "read", "write", "handle_event",
	"enable", "disable", "check", "parse", "register", "unregister",
	"set_power", "get_link", "link_change", "queue_work", "complete",
	"abort", "dma_map", "dma_unmap", "fill_ring", "clean_ring", "set_mode",
	"get_caps", "fw_load", "show", "store", "release", "mmap", "ioctl",
	"debugfs", "sysfs", "pm", "clk", "gpio", "i2c", "spi", "pci", "usb",
	"led", "phy", "mac", "eeprom", "calib", "scan", "assoc", "auth",
	"key", "rate", "queue", "desc", "buf", "ctx", "cmd", "event", "state",
};

size_t kernel_subsystem_count(void) { return COUNT(subsystems); }
const struct kernel_subsystem *kernel_subsystem(size_t index) { return &subsystems[index]; }

size_t kernel_subsystem_index(const char *name)
{
	size_t i;

	for (i = 0; i < COUNT(subsystems); i++) {
		if (strcmp(subsystems[i].name, name) == 0)
			return i;
	}
	return 0;
}

size_t kernel_area_count(void) { return COUNT(areas); }
const struct kernel_area *kernel_area(size_t index) { return &areas[index]; }

size_t kernel_compiled_file_count(void) { return COUNT(compiled_files); }
const struct kernel_compiled_file *kernel_compiled_file(size_t index) { return &compiled_files[index]; }

size_t kernel_author_count(void) { return COUNT(authors); }
const struct kernel_person *kernel_author(size_t index) { return &authors[index]; }

size_t kernel_word_count(void) { return COUNT(words); }
const char *kernel_word(size_t index) { return words[index]; }
size_t kernel_symbol_word_count(void) { return COUNT(symbol_words); }
const char *kernel_symbol_word(size_t index) { return symbol_words[index]; }
