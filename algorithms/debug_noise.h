/* debug_noise.h: a test-only multiplier on the noise of the private mechanisms, so the
 * empirical privacy audit can be shown to catch a broken mechanism (harness/sweep/audit.c;
 * tests/unit/test_audit_broken.c scales the noise by 1/10 and expects every audit to
 * report a violation).
 *
 * It exists only in objects compiled with -DDPERM_DEBUG_NOISE (the Makefile builds such
 * copies for that one test program): in every normal build DP_DEBUG_NOISE(x) is x and
 * there is no symbol to set, so no config, flag or environment variable can reach it.
 * The program built with the define owns the variable (defines it, default 1.0).
 * Each mechanism applies it at the single place its noise scale is used: the DP-SGD
 * loop (train_common.c: DP-SGD, DP-LSSGD and the rest of the first-order family), output
 * perturbation (output_pert.c), input perturbation (input_pert.c) and objective
 * perturbation's Gaussian b (objective_pert.c: a factor 1/2 under replace-one neighbours is
 * the calibration to zeta instead of 2 zeta that dperm had before it took replace-one
 * seriously, which the audit must tell apart).
 */
#ifndef DPERM_DEBUG_NOISE_H
#define DPERM_DEBUG_NOISE_H

#ifdef DPERM_DEBUG_NOISE
extern double dp_debug_noise_scale;
#define DP_DEBUG_NOISE(x) ((x) * dp_debug_noise_scale)
#else
#define DP_DEBUG_NOISE(x) (x)
#endif

#endif
