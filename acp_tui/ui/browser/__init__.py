"""The session browser: the side panel (`panel`), its rows and controls, and the actions."""
