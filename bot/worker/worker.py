"""The worker: claims inbox items and runs them, one at a time per case, several cases at once.

* The inbox hands out at most one item per case key at a time, oldest first, so each case's
  items run in order; `concurrency` bounds how many cases run at once.
* Messages recorded while a case's turn runs wait in the inbox; when the next one is claimed, the
  later messages of that case this process has seen ride along (coalesced into one turn). When
  they are claimed in their turn they are already answered and just completed.
* Listeners wake the worker as soon as they record something, so a placeholder appears at once.
* Each worker instance has an `owner` name, stable across restarts (host and data directory), and
  keeps the items it holds fresh with a heartbeat every eighth of `stale_after`. On start it
  resumes what its previous run left "processing"; items whose holder fell silent for
  `stale_after` (a replica that crashed) are resumed by whichever instance notices first, within
  `stale_after` + one heartbeat of the crash; items another live replica holds are left alone.
  `stop` lets running items finish within a grace period and returns the rest to the queue.
* Finished items (done, or failed for good) are deleted a week after they finished, checked once
  an hour: Slack redelivers an event for minutes, never for days.
* Acknowledgements first: while Slack's requests are being received (`Arrivals`), new items are
  not claimed, for up to `ACKS_FIRST_S`; a burst of events is acknowledged before the turns it
  started compete with it for the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterator, Sequence
from datetime import datetime, timedelta

from bot.inbox.retry import WORK_RETRY, RetryLater, retrying
from bot.inbox.work import TURN_KINDS, WorkKind
from bot.slack.errors import new_reference
from domain.ports import Clock
from domain.queue import InboxItem, InboxRepository
from domain.retry import RetryPolicy

logger = logging.getLogger(__name__)

Handle = Callable[[InboxItem, Sequence[InboxItem]], Awaitable[None]]
Report = Callable[[InboxItem, BaseException, str], Awaitable[None]]
COALESCING_KINDS = frozenset({WorkKind.OPEN_CASE, *TURN_KINDS})
MAX_SEEN_PER_CASE = 200
ACKS_FIRST_S = 0.2
STALE_AFTER = timedelta(minutes=2)
# A live holder renews its items this many times within `stale_after`, so a few missed beats
# (a busy event loop, a slow database) do not make its work look abandoned.
HEARTBEATS_PER_STALE = 8
KEEP_FINISHED = timedelta(days=7)
PURGE_EVERY = timedelta(hours=1)


class Arrivals:
    """Requests from Slack being received right now (their acknowledgements are owed)."""

    def __init__(self) -> None:
        self._open = 0
        self._quiet = asyncio.Event()
        self._quiet.set()

    @contextlib.contextmanager
    def receiving(self) -> Iterator[None]:
        """Around the handling of one request, until its acknowledgement is ready."""
        self._open += 1
        self._quiet.clear()
        try:
            yield
        finally:
            self._open -= 1
            if not self._open:
                self._quiet.set()

    async def settled(self, limit_s: float) -> None:
        """Wait until no request is being received, or ``limit_s`` at most."""
        if self._open:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._quiet.wait(), limit_s)


class Worker:
    """Claims and runs inbox items until stopped."""

    def __init__(
        self,
        *,
        inbox: InboxRepository,
        handle: Handle,
        report: Report,
        clock: Clock,
        owner: str,
        concurrency: int = 8,
        poll_interval_s: float = 1.0,
        heartbeat_s: float | None = None,
        stale_after: timedelta = STALE_AFTER,
        keep_finished: timedelta = KEEP_FINISHED,
        arrivals: Arrivals | None = None,
        retry: RetryPolicy = WORK_RETRY,
    ) -> None:
        self._inbox = inbox
        self._retry = retry
        self._owner = owner
        self._heartbeat = (
            stale_after / HEARTBEATS_PER_STALE
            if heartbeat_s is None
            else timedelta(seconds=heartbeat_s)
        )
        self._handle = handle
        self._report = report
        self._clock = clock
        self._concurrency = concurrency
        self._poll_interval_s = poll_interval_s
        self._stale_after = stale_after
        self._keep_finished = keep_finished
        self._purged_at: datetime | None = None
        self._arrivals = arrivals or Arrivals()
        self._wake = asyncio.Event()
        self._running: set[asyncio.Task[None]] = set()
        self._seen: dict[str, list[InboxItem]] = {}
        self._absorbed: set[str] = set()
        self._loop_task: asyncio.Task[None] | None = None
        self._stopping = False
        self._idle = asyncio.Event()

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> int:
        """Resume what this instance's previous run and crashed ones left; start claiming.

        Returns how many items were resumed.
        """
        now = self._clock.now()
        resumed = await self._inbox.release_owned(owner=self._owner, now=now)
        resumed += await self._inbox.release_stale(now=now, older_than=self._stale_after)
        if resumed:
            logger.info("resuming unfinished work", extra={"items": resumed})
        self._stopping = False
        self._loop_task = asyncio.create_task(self._loop(), name="fm-worker")
        return resumed

    async def stop(self, *, grace_s: float = 10.0) -> None:
        """Stop claiming; let running items finish within ``grace_s``; cancel the rest."""
        self._stopping = True
        self._wake.set()
        if self._loop_task is not None:
            await self._loop_task
            self._loop_task = None
        if self._running:
            _, late = await asyncio.wait(set(self._running), timeout=grace_s)
            for task in late:
                task.cancel()
            if late:
                logger.warning("cut short by shutdown, back in the queue", extra={"n": len(late)})
                await asyncio.gather(*late, return_exceptions=True)
        # What was cut short (or could not be marked done) goes back for any instance to resume.
        try:
            await self._inbox.release_owned(owner=self._owner, now=self._clock.now())
        except Exception:
            logger.exception("could not return unfinished items; the next start resumes them")

    async def held_elsewhere(self) -> list[InboxItem]:
        """Items other live instances are processing (their heartbeat is recent)."""
        since = self._clock.now() - self._stale_after
        return await self._inbox.held_elsewhere(owner=self._owner, since=since)

    async def abort(self) -> None:
        """Stop at once without finishing anything (a crash, for tests of recovery)."""
        self._stopping = True
        self._wake.set()
        tasks = [t for t in (self._loop_task, *self._running) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._loop_task = None

    def notify(self, item: InboxItem) -> None:
        """A listener recorded ``item``: remember it for coalescing and claim now."""
        if item.case_key:
            # Every kind is remembered: a click between two messages ends the coalescing.
            seen = self._seen.setdefault(item.case_key, [])
            seen.append(item)
            del seen[:-MAX_SEEN_PER_CASE]
        self._idle.clear()
        self._wake.set()

    async def wait_idle(self, timeout_s: float = 30.0) -> None:
        """Wait until nothing is running or claimable (the console waits between inputs)."""
        self._idle.clear()
        self._wake.set()
        await asyncio.wait_for(self._idle.wait(), timeout_s)

    # ------------------------------------------------------------ claiming

    async def _loop(self) -> None:
        last_beat = self._clock.now()
        while not self._stopping:
            self._wake.clear()
            if self._clock.now() - last_beat >= self._heartbeat:
                last_beat = self._clock.now()
                await self._beat(last_beat)
            claimed = await self._claim()
            # Idle only if nothing was recorded while claiming (a listener sets the wake flag).
            if not claimed and not self._running and not self._wake.is_set():
                self._idle.set()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._until_next_round(last_beat))

    def _until_next_round(self, last_beat: datetime) -> float:
        """The poll interval, or less when a heartbeat is due sooner (it bounds the resumption)."""
        if not self._heartbeat:  # a beat every round
            return self._poll_interval_s
        due = (last_beat + self._heartbeat - self._clock.now()).total_seconds()
        return max(0.0, min(self._poll_interval_s, due))

    async def _beat(self, now: datetime) -> None:
        """Say this instance still works on its items; resume those of silent (crashed) ones;
        once an hour, delete what finished long ago."""
        try:
            if self._running:
                await self._inbox.heartbeat(owner=self._owner, now=now)
            released = await self._inbox.release_stale(now=now, older_than=self._stale_after)
        except Exception:
            logger.exception("inbox heartbeat failed; retrying")
            return
        if released:
            logger.warning("resumed items of a silent worker", extra={"items": released})
        if self._purged_at is None or now - self._purged_at >= PURGE_EVERY:
            self._purged_at = now
            await self._purge(now)

    async def _purge(self, now: datetime) -> None:
        """Delete what finished more than ``keep_finished`` ago (a failure is retried next hour)."""
        try:
            purged = await self._inbox.purge_finished(before=now - self._keep_finished)
        except Exception:
            logger.exception("could not delete finished inbox items; retrying in an hour")
            return
        if purged:
            logger.info("deleted finished inbox items", extra={"items": purged})

    async def _claim(self) -> int:
        free = self._concurrency - len(self._running)
        if free <= 0:
            return 0
        await self._arrivals.settled(ACKS_FIRST_S)
        try:
            items = await self._inbox.claim(now=self._clock.now(), limit=free, owner=self._owner)
        except Exception:
            logger.exception("claiming from the inbox failed; retrying")
            return 0
        for item in items:
            task = asyncio.create_task(self._run(item), name=f"fm-item-{item.item_id}")
            self._running.add(task)
            task.add_done_callback(self._done)
        return len(items)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self._wake.set()

    # ------------------------------------------------------------ running one item

    async def _run(self, item: InboxItem) -> None:
        assert item.item_id is not None
        if item.dedup_key in self._absorbed:
            # Answered in an earlier turn together with the item before it.
            self._forget(item)
            await self._complete(item.item_id)
            return
        followers = self._followers(item)
        try:
            await self._handle(item, followers)
        except RetryLater as later:
            if not await self._requeue(item, later):
                cause = later.__cause__
                await self._fail(
                    item, cause if isinstance(cause, Exception) else later, new_reference()
                )
            return
        except Exception as error:
            reference = new_reference()
            await self._fail(item, error, reference)
            return
        self._forget(item)
        await self._complete(item.item_id)

    async def _complete(self, item_id: int) -> None:
        try:
            await retrying(lambda: self._inbox.complete(item_id), what="complete")
        except Exception:
            # Left "processing": released and resumed by the next start (the turn is idempotent).
            logger.exception("could not mark an item done", extra={"item_id": item_id})

    async def _requeue(self, item: InboxItem, later: RetryLater) -> bool:
        """Queue the item again when the policy says; False when its tries are used up."""
        assert item.item_id is not None
        if not self._retry.allows_another(item.attempts):
            return False
        item_id, payload = item.item_id, later.payload
        at = self._clock.now() + timedelta(seconds=self._retry.delay(item.attempts))
        error = f"{type(later.__cause__).__name__} (tried {item.attempts}, again at {at:%H:%M:%S})"
        await retrying(
            lambda: self._inbox.fail(item_id, error=error, retry_at=at, payload=payload),
            what="requeue",
        )
        self._unabsorb(item)
        self._forget(item)
        logger.warning(
            "work cut short; it will be retried",
            extra={"kind": item.kind, "attempt": item.attempts, "retry_at": at.isoformat()},
        )
        return True

    async def _fail(self, item: InboxItem, error: Exception, reference: str) -> None:
        assert item.item_id is not None
        # The reference, never the exception text: it could carry uploaded content.
        item_id, summary = item.item_id, f"{type(error).__name__} (ref {reference})"
        try:
            await retrying(
                lambda: self._inbox.fail(item_id, error=summary, retry_at=None), what="fail"
            )
        except Exception:
            logger.exception("could not mark an item failed", extra={"item_id": item_id})
        self._unabsorb(item)
        self._forget(item)
        try:
            await self._report(item, error, reference)
        except Exception:
            logger.exception("could not report a failure", extra={"reference": reference})

    def _followers(self, item: InboxItem) -> list[InboxItem]:
        """Later messages of the same case this process has seen, coalesced into this turn."""
        if item.kind not in COALESCING_KINDS or not item.case_key:
            return []
        seen = self._seen.get(item.case_key, [])
        keys = [s.dedup_key for s in seen]
        start = keys.index(item.dedup_key) + 1 if item.dedup_key in keys else len(seen)
        followers: list[InboxItem] = []
        for later in seen[start:]:
            if later.kind not in TURN_KINDS:
                break
            if later.dedup_key not in self._absorbed:
                followers.append(later)
        self._absorbed.update(f.dedup_key for f in followers)
        return followers

    def _unabsorb(self, item: InboxItem) -> None:
        """A failed turn answered none of its followers: they run on their own."""
        if item.case_key:
            for later in self._seen.get(item.case_key, []):
                self._absorbed.discard(later.dedup_key)

    def _forget(self, item: InboxItem) -> None:
        self._absorbed.discard(item.dedup_key)
        if not item.case_key or item.case_key not in self._seen:
            return
        remaining = [s for s in self._seen[item.case_key] if s.dedup_key != item.dedup_key]
        if remaining:
            self._seen[item.case_key] = remaining
        else:
            del self._seen[item.case_key]
