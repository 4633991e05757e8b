"""The proposal PDF: content gathered from the analysis, the cost book and (optionally) a
fabric comparison, drawn with QPdfWriter (vector pictures, selectable text)."""
