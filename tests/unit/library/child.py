"""A process using the history library, for the fault tests (run as a script).

python child.py build DATA            open the library and let it build until killed
python child.py record DATA SID N     record N turns into session SID, indexing them, and
                                      search after each; print a JSON report at the end
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from acp_tui.store.library import Library
from acp_tui.store.transcripts import TranscriptCache

AGENT = '["my-agent", "--acp"]'


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def main() -> int:
    mode, data = sys.argv[1], Path(sys.argv[2])
    problems = Collect()
    logging.getLogger().addHandler(problems)
    notices: list[str] = []
    library = Library.under(data, on_notice=notices.append)
    library.start()
    if mode == "build":
        print("started", flush=True)
        while True:
            time.sleep(1)
    sid, turns = sys.argv[3], int(sys.argv[4])
    cache = TranscriptCache(data / "transcripts", library=library)
    cache.note_session(AGENT, sid, cwd="/p")
    errors: list[str] = []
    found = 0
    for number in range(turns):
        cache.record_user(AGENT, sid, [{"type": "text", "text": f"{sid} question {number}"}])
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}}
        update["content"]["text"] = f"{sid} answer {number} " + "word " * 200  # type: ignore[index]
        cache.record_update(AGENT, sid, update)
        cache.record_turn_end(AGENT, sid, "end_turn")
        if number % 10 == 0:
            library.touched(AGENT, sid, soon=True)
        try:
            found = len(library.search(f"{sid} answer", limit=5).hits)
        except Exception as exc:
            errors.append(repr(exc))
    library.sync(60)
    found = len(library.search(f"{sid} answer").hits)
    cache.close()
    library.close()
    report = {"errors": errors, "found": found, "notices": notices, "logged": problems.messages}
    print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
