// Command server runs the users API.
package main

import (
	"context"
	"log"
	"net/http"

	"example.com/sampleapp/api"
	"example.com/sampleapp/internal/db"
	"example.com/sampleapp/users"
)

func main() {
	conn, err := db.Open(context.Background(), "users.db")
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	svc := users.NewService(users.NewUserRepository(conn))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /users/{id}", api.NewHandler(svc).ServeUser)
	log.Fatal(http.ListenAndServe(":8080", mux))
}
