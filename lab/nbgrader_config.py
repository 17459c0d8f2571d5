# What nbgrader's Validate button runs with in the student's lab (read through JUPYTER_CONFIG_PATH).
c = get_config()  # noqa
# Notebooks that train small models need more than nbgrader's 30 s per cell.
c.Execute.timeout = 120
