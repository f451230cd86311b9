# RUN: %PYTHON %s | filecheck %s
import hlograph as hg
from hlograph.frontend.ops import random as rnd
import hlograph.lowering.rules.random  # noqa: F401
from hlograph.testing import print_ir


def sample(name, fn):
    k = hg.tensor("k", (2,), "uint32")
    print_ir(name, hg.Graph([k], fn(k)))


# CHECK-LABEL: TEST: uniform uint32[2]
# CHECK: stablehlo.bitcast_convert {{.*}} -> tensor<ui64>
# CHECK: stablehlo.rng_bit_generator {{.*}} algorithm = THREE_FRY {{.*}} -> (tensor<2xui64>, tensor<3x4xui32>)
# CHECK: stablehlo.shift_right_logical
# CHECK: stablehlo.bitcast_convert {{.*}} -> tensor<3x4xf32>
# CHECK: return {{.*}} tensor<3x4xf32>
sample("uniform", lambda k: rnd.uniform(k, (3, 4), "float32", -1.0, 1.0))

# CHECK-LABEL: TEST: normal uint32[2]
# CHECK: stablehlo.rng_bit_generator {{.*}} -> (tensor<2xui64>, tensor<5xui64>)
# CHECK: chlo.erf_inv {{.*}} -> tensor<5xf64>
sample("normal", lambda k: rnd.normal(k, (5,), "float64"))

# CHECK-LABEL: TEST: split uint32[2]
# CHECK: stablehlo.rng_bit_generator {{.*}} -> (tensor<2xui64>, tensor<3x2xui32>)
# CHECK: return {{.*}} tensor<3x2xui32>
sample("split", lambda k: rnd.split(k, 3))

# CHECK-LABEL: TEST: bernoulli uint32[2]
# CHECK: stablehlo.rng_bit_generator
# CHECK: stablehlo.compare LT, {{.*}} -> tensor<4xi1>
sample("bernoulli", lambda k: rnd.bernoulli(k, 0.25, (4,)))

# CHECK-LABEL: TEST: integers uint32[2]
# CHECK: stablehlo.rng_bit_generator {{.*}} tensor<6xui64>
# CHECK: stablehlo.remainder {{.*}} tensor<6xui64>
# CHECK: stablehlo.convert {{.*}} -> tensor<6xi32>
sample("integers", lambda k: rnd.integers(k, -3, 9, (6,), "int32"))

# CHECK-LABEL: TEST: categorical uint32[2]
# CHECK: stablehlo.rng_bit_generator {{.*}} tensor<7x3xui64>
# CHECK: stablehlo.reduce
# CHECK: return {{.*}} tensor<7xi64>
sample("categorical", lambda k: rnd.categorical(k, [0.1, 0.2, 0.3], shape=(7,)))

# CHECK-LABEL: TEST: permutation uint32[2]
# CHECK: stablehlo.rng_bit_generator {{.*}} tensor<5xui64>
# CHECK: stablehlo.sort
# CHECK: return {{.*}} tensor<5xi64>
sample("permutation", lambda k: rnd.permutation(k, 5))

# CHECK-LABEL: TEST: key_from_seed int64[]
# CHECK: stablehlo.shift_right_logical
# CHECK: stablehlo.concatenate {{.*}} -> tensor<2xui32>
s = hg.tensor("s", (), "int64")
print_ir("key_from_seed", hg.Graph([s], rnd.key(s)))

# CHECK-LABEL: TEST: gamma uint32[2]
# CHECK: stablehlo.while
# CHECK: stablehlo.rng_bit_generator {{.*}} -> (tensor<2xui64>, tensor<2x4xui32>)
# CHECK: chlo.erf_inv {{.*}} -> tensor<4xf32>
# CHECK: return {{.*}} tensor<4xf32>
sample("gamma", lambda k: rnd.gamma(k, 2.0, (4,), "float32"))

# CHECK-LABEL: TEST: dirichlet uint32[2]
# CHECK: stablehlo.while
# CHECK: stablehlo.reduce
# CHECK: stablehlo.divide {{.*}} tensor<5x3xf64>
sample("dirichlet", lambda k: rnd.dirichlet(k, [1.0, 2.0, 3.0], (5,)))
