import Messaging
import Testing

@Suite struct RetryScheduleTests {
    @Test func doublesToItsMaximumAndStartsOverAfterAStableTry() {
        var schedule = RetrySchedule(initial: 1, maximum: 30, stable: 10)
        #expect((0..<7).map { _ in schedule.failed() } == [1, 2, 4, 8, 16, 30, 30])
        #expect(schedule.failed(afterLasting: 9.9) == 30, "a try that did not hold keeps backing off")
        #expect(schedule.failed(afterLasting: 10) == 1, "one that held starts over")
        #expect(schedule.failures == 1)
    }

    @Test func jitterKeepsEachDelayWithinItsShareOfTheCeiling() {
        var schedule = RetrySchedule(initial: 0.25, maximum: 30, jitter: 0.5...1, stable: 10)
        for ceiling in [0.25, 0.5, 1, 2, 4, 8, 16, 30, 30] {
            let delay = schedule.failed()
            #expect(delay >= ceiling * 0.5 && delay <= ceiling, "\(delay) for a ceiling of \(ceiling)")
        }
    }
}
