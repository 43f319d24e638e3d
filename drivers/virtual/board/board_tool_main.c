/* TEMPORARY placeholder for the board tool shim. */
int main(void) { return 127; }
