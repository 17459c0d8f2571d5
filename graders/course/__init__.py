"""The course: its directory, its one configuration, and the commands that are nbgrader's own.

- ``layout``: where things are in DIR, which assignments exist, CourseError;
- ``config``: DIR/nbgrader_config.py, read as nbgrader reads it, with `course`'s overrides said;
- ``release``, ``student_copy``: the student versions (nbgrader's generate_assignment + a tag);
- ``export``: DIR/grades.csv through nbgrader's CSV export plugin.
"""
