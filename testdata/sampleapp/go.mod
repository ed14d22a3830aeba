module example.com/sampleapp

go 1.22
