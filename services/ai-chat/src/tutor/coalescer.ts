/** Pieces of text gathered for up to `ms` after the last frame, then sent as one. */
export class Coalescer {
  private pending = '';
  private timer: NodeJS.Timeout | null = null;
  private last = performance.now();

  constructor(
    private readonly ms: number,
    private readonly out: (text: string) => void,
  ) {}

  sent(): void {
    this.last = performance.now();
  }

  add(text: string): void {
    this.pending += text;
    const wait = this.last + this.ms - performance.now();
    if (wait <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    this.drop();
    if (this.pending) this.out(this.pending);
    this.pending = '';
    this.last = performance.now();
  }

  drop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
