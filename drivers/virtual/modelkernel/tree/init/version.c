/*
 *  linux/init/version.c
 *
 *  Copyright (C) 1992  Theodore Ts'o
 *
 *  May be freely distributed as part of Linux.
 */

#define LINUX_COMPILE_BY	"builder"
#define LINUX_COMPILE_HOST	"rackbisect-lab"
#define UTS_VERSION		"#1 SMP"

__attribute__((visibility("default")))
const char uts_release[] = UTS_RELEASE;

/* FIXED STRINGS! Don't touch! */
__attribute__((visibility("default")))
const char linux_banner[] =
	"Linux version " UTS_RELEASE " (" LINUX_COMPILE_BY "@"
	LINUX_COMPILE_HOST ") (" LINUX_COMPILER ") " UTS_VERSION "\n";
