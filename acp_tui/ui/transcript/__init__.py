"""Provides the transcript view: a windowed, line-based view of a session's transcript.

`view.TranscriptView` (the keys, the mouse, find) over `display.TranscriptDisplay` (the frames
and the painting), both owning composed helpers: `lines.TranscriptLines` (the transcript laid
out in units and lines, `layout`), `painter.Painter` (units rendered with `render`, marks
painted), `keys.BlockKeys` (the selected block, `blocks`), `find.TranscriptSearch` (matches)
and `frames.FramePacer` (when a frame is due); `pieces.BlockScanner` cuts messages.
"""
