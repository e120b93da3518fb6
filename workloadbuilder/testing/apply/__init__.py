"""Server-side apply: field sets (``fieldset``), managedFields (``managed``), patch merges."""
