/**
 * Instance weights: the {@link dev.ballast.weight.Weight} type, an integer from 0 to
 * 10000 that is valid by construction, and the {@link dev.ballast.weight.WeightPolicy
 * policies} by which {@link dev.ballast.weight.WeightReader} turns an untrusted JSON
 * value into a Weight or into a refusal an operator can act on;
 * {@link dev.ballast.weight.ReceivedValue} words what was received so other fields can
 * refuse values in the same voice. This package exists because a registry once served a
 * weight as the JSON string {@code "0"} and balancers spun forever. It depends on
 * Jackson's tree model only: no Spring, no I/O.
 */
@ApplicationModule(allowedDependencies = {})
package dev.ballast.weight;

import org.springframework.modulith.ApplicationModule;
