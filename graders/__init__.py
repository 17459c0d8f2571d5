"""The grading harness around nbgrader: course layout, parallel autograde, sandbox, feedback."""
