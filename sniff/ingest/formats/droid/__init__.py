"""Factory Droid's sessions and their settings' totals: the reader and the activity."""
