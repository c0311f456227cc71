"""Identification: parameters of models from logged data (least squares, output error)."""
