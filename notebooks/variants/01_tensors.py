WRONG = {"01_tensors-offset": [("offset = 6", "off by one")]}
ALTERNATIVE = {"01_tensors-offset": "offset = 1 * 3 + 2"}
