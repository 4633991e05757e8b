"""Export formats: each module defining ``FORMAT`` (an ExportFormat) is one format."""
