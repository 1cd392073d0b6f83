"""Figures the notebooks share, one module per topic. Nothing here is graded.

* :mod:`bdl.figures.ensembles`: the deep-ensembles notebook;
* :mod:`bdl.figures.bayesian_cnn`: the Bayesian CNN notebook;
* :mod:`bdl.figures.calibration`: the calibration notebook.
"""
