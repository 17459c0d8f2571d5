# %% [markdown]
# # 01 Tensors (stub)
# %%
import torch
from helpers import checks
# %% solution 01_tensors-offset
### BEGIN SOLUTION
offset = 5
### END SOLUTION
# %% test 01_tensors-offset-test points=1
checks.reject(offset, {6: "off by one"}, "offset")
### BEGIN HIDDEN TESTS
assert offset == 1 * 3 + 2
### END HIDDEN TESTS
