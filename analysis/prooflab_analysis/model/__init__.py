"""A pipeline model that predicts an intervention before it runs (docs/model.md).

calibration.py fits stage distributions from a measured run; resources.py holds the SimPy
resources (shared cores with a memory-bandwidth budget, locks, VRAM, host memory);
stages.py says where each engine stage runs; engine_sim.py simulates the engine's policies;
predict.py makes the table, the binding-resource explanation and predicted runs;
validation.py compares predictions with a measured experiment; settings.py lists the knobs.
"""

from .calibration import Calibration, CalibrationError, StageDistribution, calibrate
from .engine_sim import SimResult, simulate
from .predict import Prediction, format_table, load_source, predict, predicted_run
from .settings import KNOBS, KnobError, Settings

__all__ = ["Calibration", "CalibrationError", "KNOBS", "KnobError", "Prediction", "Settings", "SimResult",
           "StageDistribution", "calibrate", "format_table", "load_source", "predict", "predicted_run", "simulate"]
