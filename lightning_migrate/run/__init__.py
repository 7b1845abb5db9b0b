"""The driver: reads the files, runs the project pre-pass and the prefilter, hands each file to the front end
of its kind (`file_kinds`) in a pool of workers (`runner`), with the run's settings (`options`)."""
