/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stop watchdog: SIGTERM ends vbrd within a bound whatever the workers,
 * the PMDs or the EAL are doing.
 */
#ifndef VBRD_WATCHDOG_H
#define VBRD_WATCHDOG_H

#define VBRD_STOP_BOUND_MS     2000 /* from "stopping" to the end of the process */
#define VBRD_EXIT_STOP_TIMEOUT 3    /* exit status when the watchdog ended vbrd */

/**
 * Arm the watchdog for the shutdown: a thread that, unless watchdog_disarm()
 * is called within @p bound_ms, writes "vbrd: stop watchdog: still PHASE
 * after N ms: exiting without cleanup" to stderr and ends the process with
 * _exit(VBRD_EXIT_STOP_TIMEOUT). The kernel still frees the process's memory,
 * sockets and devices; what is left is the EAL's runtime directory
 * (/var/run/dpdk/PREFIX), which the next start with that prefix reuses.
 *
 * @param bound_ms  milliseconds from now (CLOCK_MONOTONIC)
 * @return 0, or a negative errno when the thread cannot be started (the
 *         shutdown is then not bounded; the caller logs it)
 */
int watchdog_arm(unsigned bound_ms);

/**
 * Say what the shutdown does now, for the watchdog's message.
 * @param phase  a string that lives until exit (a literal), e.g. "closing ports"
 */
void watchdog_phase(const char *phase);

/**
 * Say that the service has stopped (workers, ports, the HA lease given
 * back, the control socket closed) and only the process's own cleanup is
 * left (rte_eal_cleanup(), which on a loaded machine can take seconds to
 * unmap the EAL's memory). A watchdog that fires after this ends the
 * process with status 0, not VBRD_EXIT_STOP_TIMEOUT: the stop did what it
 * is for; the message still names the phase.
 * @param phase  as for watchdog_phase()
 */
void watchdog_service_stopped(const char *phase);

/** The shutdown finished: the watchdog will not end the process. */
void watchdog_disarm(void);

#endif
