/* SPDX-License-Identifier: MIT */
/*
 * kernel_shim.h - just enough of a kernel module's surroundings for the
 * sample programs of this directory to be written as a module would be:
 * printk() prints to stdout, module_init() becomes main().  It defines no
 * kfifo name: every kfifo call the samples make is <kfifo.h>'s.
 */
#ifndef KFIFO_KERNEL_SHIM_H
#define KFIFO_KERNEL_SHIM_H

#include <stdio.h>
#include <string.h>

#define KERN_INFO ""
#define KERN_WARNING "warning: "
#define KERN_ERR "error: "
#define printk(...) printf(__VA_ARGS__)
#define pr_info(...) printf(__VA_ARGS__)
#define pr_err(...) printf("error: " __VA_ARGS__)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define __init
#define __exit
#define MODULE_LICENSE(x) extern int kfifo_shim_unused
#define MODULE_AUTHOR(x) extern int kfifo_shim_unused

/* the module's init returns 0 on success; its exit runs afterwards */
#define module_init(fn)                                                        \
	static void kfifo_shim_exit(void);                                     \
	int main(void)                                                         \
	{                                                                      \
		int ret = fn();                                                \
		kfifo_shim_exit();                                             \
		return ret ? 1 : 0;                                            \
	}                                                                      \
	extern int kfifo_shim_unused
#define module_exit(fn)                                                        \
	static void kfifo_shim_exit(void)                                      \
	{                                                                      \
		fn();                                                          \
	}                                                                      \
	extern int kfifo_shim_unused

#endif
