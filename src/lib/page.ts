/**
 * How much of a long list any surface shows: a listing's default page, what an answer to an agent
 * or the page lists before it counts the rest, what doctor keeps and shows of a list of problems.
 * A layer that grew for a year holds tens of thousands of records and, after a crash or two,
 * thousands of open episodes; every view shows the first PAGE and says how many more there are.
 */
export const PAGE = 20;
