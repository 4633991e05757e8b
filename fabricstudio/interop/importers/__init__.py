"""Import formats: each module defining ``FORMAT`` (an ImportFormat) is one format."""
