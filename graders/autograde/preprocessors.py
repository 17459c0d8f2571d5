"""Small nbgrader preprocessors for a worker's autograding (graders.autograde.pipeline).

``ExecutedElsewhere`` takes Execute's place in ``Autograde.autograde_preprocessors``: the
notebook arrives already executed by a worker, so nothing runs here. When the worker did not
finish (timeout, memory, crash), test cells that never ran have no outputs, and nbgrader's
``determine_grade`` would give such a cell full marks; they get an error output saying why,
so they score 0 and the feedback tells the student what happened. So does the cell the run
stopped in (the last one with an execution count): it started but never finished.

``KeepPointsOnWarnings`` goes just before SaveAutoGrades: ``determine_grade`` scores any
stderr stream as 0 (jupyter/nbgrader PR #1904), so a correct answer that makes torch warn
would lose its points. In a test cell without an error output, stderr streams become
display_data (text kept, marked in metadata): the warning stays visible, the grade depends
on errors only.

``CachedCheckCellMetadata`` takes CheckCellMetadata's place (it runs in both halves): the same
checks and errors, but nbgrader's JSON schema is checked against its metaschema once per
process instead of once per cell (``jsonschema.validate`` does that on every call: 34 of the
35 ms a 01 notebook's check took, twice per submission, in the process that is the batch's
bottleneck on a cluster).

``SaveAutoGradesInOneCommit`` takes SaveAutoGrades' place: the same grades and comments, in
one transaction per notebook instead of one per cell (about thirty commits for a 01
notebook, each a flush, a journal and an fsync). A batch killed in between leaves none of
that notebook's grades rather than some of them; its status record is not written either,
so the next run grades it again.
"""

from __future__ import annotations

import traceback

import jsonschema
from nbformat.v4 import new_output
from nbgrader import utils
from nbgrader.api import Gradebook
from nbgrader.nbgraderformat import MetadataValidator, SchemaTooNewError, SchemaTooOldError, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator
from nbgrader.preprocessors import CheckCellMetadata, NbGraderPreprocessor, SaveAutoGrades


class ExecutedElsewhere(NbGraderPreprocessor):
    def preprocess(self, nb, resources):
        outcome = resources.get("graders", {})
        if outcome.get("status", "ok") != "ok":
            reason = outcome.get("reason", outcome["status"])
            code = [c for c in nb.cells if c.cell_type == "code"]
            counts = [c.get("execution_count") or 0 for c in code]
            stopped_in = code[counts.index(max(counts))] if code and max(counts) else None
            for cell in code:
                unfinished = cell.get("execution_count") is None or cell is stopped_in
                if utils.is_grade(cell) and unfinished:
                    cell.outputs = cell.get("outputs", []) + [new_output(
                        "error", ename="NotRun", evalue=f"this test did not finish: {reason}", traceback=[])]
        return nb, resources


class KeepPointsOnWarnings(NbGraderPreprocessor):
    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and utils.is_grade(cell):
            outputs = cell.get("outputs", [])
            if not any(o.output_type == "error" for o in outputs):
                cell.outputs = [self._as_display(o) if o.output_type == "stream" and o.name == "stderr" else o
                                for o in outputs]
        return cell, resources

    @staticmethod
    def _as_display(output):
        return new_output("display_data", data={"text/plain": output.text},
                          metadata={"graders": {"stderr": True}})


class _SchemaCheckedOnce(BaseMetadataValidator):
    """BaseMetadataValidator.validate_cell with one compiled validator per schema version.

    Placed after nbgrader's MetadataValidator in the bases below, it is what that class's
    ``super().validate_cell`` reaches, so nbgrader's own per-cell checks run unchanged."""

    _compiled: dict = {}

    def validate_cell(self, cell) -> None:
        if "nbgrader" not in cell.metadata:
            return
        schema = cell.metadata["nbgrader"].get("schema_version", 0)
        if schema < self.schema_version:
            raise SchemaTooOldError(f"Outdated schema version: {schema} (expected {self.schema_version})",
                                    schema, self.schema_version)
        if schema > self.schema_version:
            raise SchemaTooNewError(f"Schema version is too new: {schema} (expected {self.schema_version})",
                                    schema, self.schema_version)
        validator = self._compiled.get(self.schema_version)
        if validator is None:
            cls = jsonschema.validators.validator_for(self.schema)
            cls.check_schema(self.schema)
            validator = self._compiled[self.schema_version] = cls(self.schema)
        error = jsonschema.exceptions.best_match(validator.iter_errors(cell.metadata["nbgrader"]))
        if error is not None:
            raise error


class CachedMetadataValidator(MetadataValidator, _SchemaCheckedOnce):
    pass


class CachedCheckCellMetadata(CheckCellMetadata):
    def preprocess(self, nb, resources):
        try:
            CachedMetadataValidator().validate_nb(nb)
        except ValidationError:
            # nbgrader's own log lines and message, so a corrupted notebook reads the same
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg) from None
        return nb, resources


class SaveAutoGradesInOneCommit(SaveAutoGrades):
    def preprocess(self, nb, resources):
        # SaveAutoGrades.preprocess, with the per-cell commits of _add_score and _add_comment
        # turned into flushes (later queries see them) and one commit at the end
        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.student_id = resources["nbgrader"]["student"]
        self.db_url = resources["nbgrader"]["db_url"]
        self.gradebook = Gradebook(self.db_url)
        with self.gradebook:
            session = self.gradebook.db
            session.commit = session.flush
            try:
                nb, resources = super(SaveAutoGrades, self).preprocess(nb, resources)
            finally:
                del session.commit
            session.commit()
        return nb, resources
