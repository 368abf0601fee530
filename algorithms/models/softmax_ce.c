/* softmax_ce.c: softmax cross-entropy of integer labels, the loss of every deep model.
 *
 * Source: the multinomial logistic loss log-sum-exp(s) - s_y (DP-LSSGD §4, DPlis §5;
 * tf.nn.sparse_softmax_cross_entropy_with_logits). The row maximum is subtracted before
 * exponentiating, so no exp overflows and the sum is >= 1 (its log is safe). Losses and
 * gradients are per example, unaveraged: the model sums or clips them example by example.
 */
#include "algorithms/models/layers.h"

#include <assert.h>
#include <math.h>

/* Row maximum and sum of exp(s - max). */
static inline double row_lse(const double *s, int K, double *mx_out)
{
    double mx = s[0];
    for (int j = 1; j < K; j++)
        if (s[j] > mx) mx = s[j];
    double sum = 0.0;
    for (int j = 0; j < K; j++) sum += exp(s[j] - mx);
    *mx_out = mx;
    return sum;
}

double dp_softmax_ce_forward(double *loss, const double *logits, const int *y, size_t B,
                             int K)
{
    // logits is (B,K), y (B), loss (B) or NULL
    double total = 0.0;
    for (size_t i = 0; i < B; i++) {
        const double *s = logits + i * (size_t)K;
        assert(y[i] >= 0 && y[i] < K);
        double mx, sum = row_lse(s, K, &mx);
        double l = (mx - s[y[i]]) + log(sum);
        if (loss) loss[i] = l;
        total += l;
    }
    return total;
}

void dp_softmax_ce_backward(double *dlogits, const double *logits, const int *y, size_t B,
                            int K)
{
    // logits and dlogits are (B,K), y (B)
    for (size_t i = 0; i < B; i++) {
        const double *s = logits + i * (size_t)K;
        double *d = dlogits + i * (size_t)K;
        double mx, inv = 1.0 / row_lse(s, K, &mx);
        for (int j = 0; j < K; j++) d[j] += exp(s[j] - mx) * inv;
        d[y[i]] -= 1.0;
    }
}
