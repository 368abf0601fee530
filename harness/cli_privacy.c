/* cli_privacy.c: `dperm privacy epsilon|sigma ...`, the privacy calculator.
 *
 * epsilon: the (eps, delta) of `steps` Poisson-subsampled Gaussian steps with noise
 * multiplier sigma and rate q. sigma: the smallest noise multiplier meeting a target.
 * Accountant: RDP (the one every dperm run uses); --verbose shows the optimal order and
 * both RDP conversions side by side.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../algorithms/privacy/rdp.h"
#include "cli.h"

static const char PRIVACY_HELP[] =
    "usage: dperm privacy epsilon --sigma S --q Q --steps T --delta D [--verbose]\n"
    "       dperm privacy sigma --epsilon E --q Q --steps T --delta D [--verbose]\n"
    "\n"
    "Privacy of DP-SGD-style training: T steps of the Gaussian mechanism with noise\n"
    "multiplier S on a Poisson sample of rate Q (Q = 1: full batch).\n"
    "\n"
    "options:\n"
    "  --sigma S        noise multiplier (> 0)\n"
    "  --epsilon E      target epsilon (> 0)\n"
    "  --q Q            sampling rate in (0, 1] (expected batch size / n)\n"
    "  --steps T        number of steps (>= 1)\n"
    "  --delta D        delta in (0, 1)\n"
    "  --accountant A   rdp (default; the accountant dperm runs use)\n"
    "  --verbose        optimal RDP order and both RDP conversions\n";

static int parse_num(const char *opt, const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    if (end == s || *end || !isfinite(*out))
        return cli_usage_error("privacy", "%s takes a number, got '%s'", opt, s);
    return 0;
}

int cli_privacy(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"sigma", required_argument, 0, 's'},   {"epsilon", required_argument, 0, 'e'},
        {"q", required_argument, 0, 'q'},       {"steps", required_argument, 0, 't'},
        {"delta", required_argument, 0, 'd'},   {"accountant", required_argument, 0, 'a'},
        {"verbose", no_argument, 0, 'v'},       {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    double sigma = NAN, eps = NAN, q = NAN, steps_d = NAN, delta = NAN;
    int verbose = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 's': rc = parse_num("--sigma", optarg, &sigma); break;
        case 'e': rc = parse_num("--epsilon", optarg, &eps); break;
        case 'q': rc = parse_num("--q", optarg, &q); break;
        case 't': rc = parse_num("--steps", optarg, &steps_d); break;
        case 'd': rc = parse_num("--delta", optarg, &delta); break;
        case 'a':
            if (strcmp(optarg, "rdp") != 0)
                return cli_usage_error("privacy", "unknown accountant '%s' (available: rdp)", optarg);
            break;
        case 'v': verbose = 1; break;
        case 'h': fputs(PRIVACY_HELP, stdout); return EXIT_OK;
        case ':': return cli_usage_error("privacy", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("privacy", "unknown option '%s'", argv[optind - 1]);
        }
        if (rc) return rc;
    }
    if (optind >= argc) return cli_usage_error("privacy", "missing what to compute: epsilon or sigma");
    const char *what = argv[optind];
    int want_eps = !strcmp(what, "epsilon"), want_sigma = !strcmp(what, "sigma");
    if (!want_eps && !want_sigma)
        return cli_usage_error("privacy", "unknown calculation '%s' (epsilon or sigma)", what);
    if (isnan(q) || isnan(steps_d) || isnan(delta))
        return cli_usage_error("privacy", "--q, --steps and --delta are required");
    if (want_eps && isnan(sigma)) return cli_usage_error("privacy", "epsilon needs --sigma");
    if (want_sigma && isnan(eps)) return cli_usage_error("privacy", "sigma needs --epsilon");
    if (steps_d < 1 || steps_d != floor(steps_d) || steps_d > 1e12)
        return cli_usage_error("privacy", "--steps takes a whole number >= 1, got %g", steps_d);
    long steps = (long)steps_d;

    dp_err err;
    dp_err_clear(&err);
    if (want_sigma) {
        if (!(eps > 0)) return cli_usage_error("privacy", "--epsilon must be > 0, got %g", eps);
        if (dp_rdp_calibrate_sigma(q, steps, delta, eps, DP_RDP_CONVERT_IMPROVED, &sigma, &err)) {
            cli_print_error(&err);
            return EXIT_USAGE;
        }
        printf("sigma = %.6g  (noise multiplier for epsilon <= %g, delta %g, q %g, %ld steps; RDP)\n",
               sigma, eps, delta, q, steps);
    }
    double e_imp, e_cls, o_imp, o_cls;
    if (dp_rdp_epsilon(q, sigma, steps, delta, DP_RDP_CONVERT_IMPROVED, &e_imp, &o_imp, &err) ||
        dp_rdp_epsilon(q, sigma, steps, delta, DP_RDP_CONVERT_CLASSIC, &e_cls, &o_cls, &err)) {
        cli_print_error(&err);
        return EXIT_USAGE;
    }
    if (want_eps)
        printf("epsilon = %.6g  (delta %g, sigma %g, q %g, %ld steps; RDP)\n", e_imp, delta,
               sigma, q, steps);
    if (verbose) {
        printf("  %-40s %12s %10s\n", "accountant", "epsilon", "order");
        printf("  %-40s %12.6g %10g\n", "rdp, improved conversion (Balle 2020)", e_imp, o_imp);
        printf("  %-40s %12.6g %10g\n", "rdp, classic conversion (Mironov 2017)", e_cls, o_cls);
    }
    /* At an end of the order grid the optimum may lie outside it: the bound still holds
     * but may be loose, and the user should know. */
    const double *orders;
    size_t n_orders = dp_rdp_default_orders(&orders);
    if (e_imp > 0 && (o_imp <= orders[0] || o_imp >= orders[n_orders - 1]))
        fprintf(stderr, "dperm: note: the best RDP order (%g) is at the end of the order grid "
                        "[%g, %g]; the epsilon is an upper bound but may be loose\n",
                o_imp, orders[0], orders[n_orders - 1]);
    return EXIT_OK;
}
